package objtest

import (
	"bytes"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"os/exec"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// Emulators are programs named by these variables (.ci/run sets them).
const (
	EnvFakeGCS = "RANKEVAL_FAKE_GCS_SERVER" // fake-gcs-server's executable
	EnvAzurite = "RANKEVAL_AZURITE"         // azurite-blob's executable
)

// emulators holds the one process of each emulator a test binary starts,
// with a count to name each test's bucket apart.
var emulators struct {
	sync.Mutex
	base map[string]string // scheme → the emulator's base URL
	err  map[string]error
	n    atomic.Int64
}

// startEmulator serves s from the scheme's emulator if one is named,
// behind a proxy that counts what it sends, in a bucket of its own.
func (s *Server) startEmulator(t testing.TB) bool {
	env := map[string]string{"gs": EnvFakeGCS, "az": EnvAzurite}[s.Scheme]
	prog := os.Getenv(env)
	if prog == "" {
		return false
	}
	base, err := emulator(s.Scheme, prog)
	if err != nil {
		t.Fatalf("%s=%s: %v", env, prog, err)
	}
	s.Emulator = prog
	s.bucket = fmt.Sprintf("t%d-%d", os.Getpid(), emulators.n.Add(1))
	target, _ := url.Parse(base)
	proxy := httputil.NewSingleHostReverseProxy(target)
	proxy.FlushInterval = -1
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		proxy.ServeHTTP(s.count(w, r), r)
	}))
	t.Cleanup(srv.Close)
	s.url = srv.URL
	switch s.Scheme {
	case "gs":
		body := fmt.Sprintf(`{"name": %q}`, s.bucket)
		if err := post(base+"/storage/v1/b?project=rankeval", "application/json", []byte(body)); err != nil {
			t.Fatalf("fake-gcs-server: creating a bucket: %v", err)
		}
		s.put = func(key string, data []byte) error {
			u := base + "/upload/storage/v1/b/" + s.bucket + "/o?" + url.Values{"uploadType": {"media"}, "name": {key}}.Encode()
			return post(u, "application/octet-stream", data)
		}
	case "az":
		s.put = azuritePut(t, azConnection(base), s.bucket)
	}
	pointAt(t, s.Scheme, srv.URL)
	return true
}

func post(u, ctype string, body []byte) error {
	resp, err := http.Post(u, ctype, bytes.NewReader(body))
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode >= 300 {
		return fmt.Errorf("%s: %s", u, resp.Status)
	}
	return nil
}

// emulator starts the scheme's emulator once per test binary and returns
// its base URL. The process is killed when the test binary exits.
func emulator(scheme, prog string) (string, error) {
	emulators.Lock()
	defer emulators.Unlock()
	if b := emulators.base[scheme]; b != "" {
		return b, nil
	}
	if err := emulators.err[scheme]; err != nil {
		return "", err
	}
	base, err := launch(scheme, prog)
	if emulators.base == nil {
		emulators.base, emulators.err = map[string]string{}, map[string]error{}
	}
	emulators.base[scheme], emulators.err[scheme] = base, err
	return base, err
}

func launch(scheme, prog string) (string, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	var cmd *exec.Cmd
	switch scheme {
	case "gs":
		cmd = exec.Command(prog, "-scheme", "http", "-host", "127.0.0.1", "-port", fmt.Sprint(port),
			"-backend", "memory", "-log-level", "error", "-public-host", fmt.Sprintf("127.0.0.1:%d", port))
	default:
		cmd = exec.Command(prog, "--blobHost", "127.0.0.1", "--blobPort", fmt.Sprint(port),
			"--silent", "--skipApiVersionCheck", "--loose", "--inMemoryPersistence")
	}
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	dieWithParent(cmd)
	if err := cmd.Start(); err != nil {
		return "", err
	}
	exited := make(chan struct{})
	go func() { cmd.Wait(); close(exited) }()
	base := fmt.Sprintf("http://127.0.0.1:%d", port)
	for deadline := time.Now().Add(60 * time.Second); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		c, err := net.Dial("tcp", fmt.Sprintf("127.0.0.1:%d", port))
		if err == nil {
			c.Close()
			return base, nil
		}
		select {
		case <-exited:
			return "", fmt.Errorf("exited: %s", strings.TrimSpace(out.String()))
		default:
		}
	}
	cmd.Process.Kill()
	<-exited
	return "", fmt.Errorf("did not listen on %s within a minute: %s", base, strings.TrimSpace(out.String()))
}
