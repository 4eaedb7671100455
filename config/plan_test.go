package config

import (
	"errors"
	"testing"
	"time"
)

// TestPrepareReadTimeout: a negative read timeout is a usage error naming
// the setting, as Merge refuses it, rather than the default taken in its
// place; 0 is the default.
func TestPrepareReadTimeout(t *testing.T) {
	for _, tc := range []struct {
		name string
		d    time.Duration
		ok   bool
	}{
		{"default", Default().ReadTimeout, true},
		{"zero is the default", 0, true},
		{"negative", -time.Second, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := Default()
			c.ReadTimeout = tc.d
			_, err := c.Prepare([]string{"log.jsonl"})
			var se *SettingError
			switch {
			case tc.ok && err != nil:
				t.Fatalf("Prepare: %v", err)
			case !tc.ok && (!errors.Is(err, ErrUsage) || !errors.As(err, &se) || se.Setting != "read-timeout"):
				t.Fatalf("Prepare: %v; want a usage error about read-timeout", err)
			}
		})
	}
}
