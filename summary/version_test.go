package summary

import (
	"runtime/debug"
	"testing"
)

// TestVersionSameForBothCommands: rankeval (the module is the main one,
// stamped by go with a pseudo-version) and rankeval-beam (the module is a
// dependency replaced by the checkout, "(devel)" to go) built from one
// commit print one version.
func TestVersionSameForBothCommands(t *testing.T) {
	const path = "github.com/rankeval/rankeval"
	vcs := func(modified string) []debug.BuildSetting {
		return []debug.BuildSetting{{Key: "vcs", Value: "git"},
			{Key: "vcs.revision", Value: "82a1ee7d0456c2bd1914c0e70ef31c965f368e04"},
			{Key: "vcs.time", Value: "2026-11-25T03:58:47Z"},
			{Key: "vcs.modified", Value: modified}}
	}
	main := func(v string, modified string) *debug.BuildInfo {
		return &debug.BuildInfo{Main: debug.Module{Path: path, Version: v}, Settings: vcs(modified)}
	}
	beam := func(modified string) *debug.BuildInfo {
		return &debug.BuildInfo{
			Main: debug.Module{Path: path + "/dist/beam", Version: "v0.0.0-20261125035847-82a1ee7d0456"},
			Deps: []*debug.Module{{Path: path, Version: "v0.0.0-00010101000000-000000000000",
				Replace: &debug.Module{Path: "../..", Version: "(devel)"}}},
			Settings: vcs(modified),
		}
	}
	const clean = "v0.0.0-20261125035847-82a1ee7d0456 (82a1ee7d0456)"
	const dirty = "v0.0.0-20261125035847-82a1ee7d0456 (82a1ee7d0456, modified)"
	for _, tc := range []struct {
		name string
		bi   *debug.BuildInfo
		want string
	}{
		{"rankeval", main("v0.0.0-20261125035847-82a1ee7d0456", "false"), clean},
		{"rankeval-beam", beam("false"), clean},
		{"rankeval modified", main("v0.0.0-20261125035847-82a1ee7d0456+dirty", "true"), dirty},
		{"rankeval-beam modified", beam("true"), dirty},
		{"rankeval -buildvcs=false", &debug.BuildInfo{Main: debug.Module{Path: path, Version: "(devel)"}}, "(devel)"},
		{"after a tag", main("v1.3.1-0.20261125035847-82a1ee7d0456", "false"), clean},
		{"a release", &debug.BuildInfo{Main: debug.Module{Path: path, Version: "v1.3.0"}}, "v1.3.0"},
		{"a release, as a dependency", &debug.BuildInfo{Main: debug.Module{Path: "example.com/x"},
			Deps: []*debug.Module{{Path: path, Version: "v1.3.0-rc.1"}}}, "v1.3.0-rc.1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := versionOf(tc.bi); got != tc.want {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
}

// TestVersionStamped: a release build's stamp (scripts/release sets it with
// -ldflags -X) is the version, in the form versionOf gives a VCS build.
func TestVersionStamped(t *testing.T) {
	defer func(v, r string) { releaseVersion, releaseRevision = v, r }(releaseVersion, releaseRevision)
	for _, tc := range []struct{ name, version, revision, want string }{
		{"a tag", "v1.3.0", "82a1ee7d0456", "v1.3.0 (82a1ee7d0456)"},
		{"a pseudo-version, modified", "v0.0.0-20261125035847-82a1ee7d0456", "82a1ee7d0456, modified",
			"v0.0.0-20261125035847-82a1ee7d0456 (82a1ee7d0456, modified)"},
		{"no revision", "v1.3.0", "", "v1.3.0"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			releaseVersion, releaseRevision = tc.version, tc.revision
			if got := Version(); got != tc.want {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
}
