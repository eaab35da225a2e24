// Package testcorpus finds the shared corpus of real τ-Argus inputs and
// outputs that tests read: the directory named by the ARGUS_CORPUS
// environment variable, else the first shared/corpus found beside the
// module root or beside one of its ancestors (the project's workspace keeps
// it beside the repository; a worktree or clone deeper in that workspace
// finds the same one). The corpus is not part of the repository; tests that
// need it skip when it is absent.
//
// Test packages read the directory when they are initialised, before the
// go command's test cache starts recording the environment: after changing
// ARGUS_CORPUS run the tests with -count=1 (or go clean -testcache).
package testcorpus

import (
	"os"
	"path/filepath"
)

// Env is the environment variable that names the corpus directory.
const Env = "ARGUS_CORPUS"

// Dir returns the corpus directory: $ARGUS_CORPUS when set, else
// shared/corpus beside the module root found above the working directory or
// beside the nearest of its ancestors that has one. When none exists it
// returns the one beside the module root; callers check with os.Stat (or
// Available) and skip.
func Dir() string {
	if d := os.Getenv(Env); d != "" {
		return d
	}
	wd, err := os.Getwd()
	if err != nil {
		return filepath.Join("..", "shared", "corpus")
	}
	root := ""
	for dir := wd; ; dir = filepath.Dir(dir) {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			root = dir
			break
		}
		if filepath.Dir(dir) == dir {
			return filepath.Join(wd, "shared", "corpus")
		}
	}
	for dir := filepath.Dir(root); ; dir = filepath.Dir(dir) {
		c := filepath.Join(dir, "shared", "corpus")
		if st, err := os.Stat(c); err == nil && st.IsDir() {
			return c
		}
		if filepath.Dir(dir) == dir {
			return filepath.Join(filepath.Dir(root), "shared", "corpus")
		}
	}
}

// Path returns the corpus path of the given elements.
func Path(elem ...string) string {
	return filepath.Join(append([]string{Dir()}, elem...)...)
}

// Available reports whether the corpus directory exists.
func Available() bool {
	st, err := os.Stat(Dir())
	return err == nil && st.IsDir()
}

// Skip is the message for a test skipped without the corpus.
const Skip = "corpus not available: set " + Env + " or place shared/corpus beside the repository"
