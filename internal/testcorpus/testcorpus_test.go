package testcorpus

import (
	"os"
	"path/filepath"
	"testing"
)

func TestDirFromEnv(t *testing.T) {
	t.Setenv(Env, "/x/corpus")
	if got := Path("a", "b.txt"); got != filepath.Join("/x/corpus", "a", "b.txt") {
		t.Errorf("Path = %s", got)
	}
}

// TestDirAncestors: a module deeper in the workspace finds the corpus
// beside an ancestor of its root; without one, the place beside the root is
// named.
func TestDirAncestors(t *testing.T) {
	t.Setenv(Env, "")
	ws := t.TempDir()
	pkg := filepath.Join(ws, "worktrees", "repo", "argusio", "hrc")
	for _, d := range []string{pkg, filepath.Join(ws, "shared", "corpus")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(ws, "worktrees", "repo", "go.mod"), []byte("module x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Chdir(pkg)
	if got, want := Dir(), filepath.Join(ws, "shared", "corpus"); got != want {
		t.Errorf("Dir = %s, want %s", got, want)
	}
	if !Available() {
		t.Error("not available")
	}
	if err := os.Remove(filepath.Join(ws, "shared", "corpus")); err != nil {
		t.Fatal(err)
	}
	// Now the one beside the root is named, unless an ancestor of the
	// temporary directory has a corpus of its own.
	got := Dir()
	if got != filepath.Join(ws, "worktrees", "shared", "corpus") {
		if st, err := os.Stat(got); err != nil || !st.IsDir() {
			t.Errorf("without a corpus: Dir = %s", got)
		}
	}
}
