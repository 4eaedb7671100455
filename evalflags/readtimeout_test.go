package evalflags

import (
	"errors"
	"flag"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/rankeval/rankeval/config"

	"github.com/rankeval/rankeval/objstore"
)

// TestReadTimeout: --read-timeout is one of the shared flags, defaults to
// objstore's default, travels in Config (to a distributed run's workers)
// and is refused when not above 0.
func TestReadTimeout(t *testing.T) {
	tests := []struct {
		args []string
		want time.Duration
		err  string
	}{
		{nil, objstore.DefaultReadTimeout, ""},
		{[]string{"--read-timeout", "5m"}, 5 * time.Minute, ""},
		{[]string{"--read-timeout=250ms"}, 250 * time.Millisecond, ""},
		{[]string{"--read-timeout", "0"}, 0, "--read-timeout 0s: want a duration > 0"},
		{[]string{"--read-timeout", "-3s"}, 0, "--read-timeout -3s: want a duration > 0"},
	}
	for _, tc := range tests {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			fs := flag.NewFlagSet("t", flag.ContinueOnError)
			fs.SetOutput(io.Discard)
			v := config.Default()
			f := Register(fs, &v)
			if _, err := Parse(fs, tc.args); err != nil {
				t.Fatal(err)
			}
			err := f.Finish()
			if tc.err != "" {
				if !errors.Is(err, config.ErrUsage) || err.Error() != tc.err+", such as 60s or 5m" {
					t.Fatalf("err = %v, want a usage error %q", err, tc.err)
				}
				return
			}
			if err != nil || v.ReadTimeout != tc.want {
				t.Fatalf("ReadTimeout %v, err %v; want %v", v.ReadTimeout, err, tc.want)
			}
		})
	}
}
