package objtest

import (
	"os/exec"
	"syscall"
)

// dieWithParent has the kernel kill cmd when the test binary exits.
func dieWithParent(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}
