// Package atomicfile writes files all at once or not at all: a reader never
// sees a half-written file, a failed write leaves the previous file (or
// none) in place, and a process killed while writing leaves nothing behind.
//
// On Linux the content goes to an anonymous file in the destination's
// directory (O_TMPFILE), which has no name until it is complete and synced:
// it is then linked in at the destination, or, when the destination exists,
// linked under a temporary name and renamed over it. A process killed before
// the link leaves no file at all. Elsewhere, and on file systems without
// O_TMPFILE, the content goes to a hidden temporary file
// ".NAME.tmp-PID-HOST-RANDOM" that is renamed over the destination; each
// write removes the temporary files in its directory left by processes of
// this host that have died (and those of the older pattern ".NAME.tmp-N"
// older than an hour), so that values a killed run was writing do not stay
// on disk. [Write] looks for them at every call; a [Writer], which a job
// writing many files keeps, looks once per directory.
//
// The file gets exactly the permissions asked for (the umask does not
// apply), as os.Chmod gives.
package atomicfile

import (
	"crypto/rand"
	"fmt"
	"hash/fnv"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/sdcengine/argus/argusio/pidalive"
)

// Write creates or replaces the file at path with what fill writes. If fill
// or any file operation fails, the destination is untouched and no
// temporary file remains. It first removes the stale temporary files of
// path's directory.
func Write(path string, perm os.FileMode, fill func(w io.Writer) error) error {
	removeStale(dirOf(path))
	return write(path, perm, fill)
}

// A Writer writes files like [Write] but removes the stale temporary files
// of a directory only before its first write there: a job writing hundreds
// of outputs into one directory reads that directory once. The zero value
// is ready to use; a Writer is safe for concurrent use.
type Writer struct {
	mu    sync.Mutex
	swept map[string]bool // directories already cleaned
}

// Write creates or replaces the file at path with what fill writes, as
// the package's [Write].
func (wr *Writer) Write(path string, perm os.FileMode, fill func(w io.Writer) error) error {
	dir := dirOf(path)
	wr.mu.Lock()
	if !wr.swept[dir] {
		if wr.swept == nil {
			wr.swept = map[string]bool{}
		}
		wr.swept[dir] = true
		removeStale(dir)
	}
	wr.mu.Unlock()
	return write(path, perm, fill)
}

// dirOf returns the directory of path, "." for a bare name.
func dirOf(path string) string {
	if dir, _ := filepath.Split(path); dir != "" {
		return dir
	}
	return "."
}

// write writes path without looking for stale temporary files.
func write(path string, perm os.FileMode, fill func(w io.Writer) error) error {
	dir := dirOf(path)
	_, base := filepath.Split(path)
	if err := CheckDir(filepath.Clean(dir)); err != nil {
		return fmt.Errorf("write %s: %w", path, err) // not the temporary file's name
	}
	if f := openAnonymous(dir); f != nil {
		return writeAnonymous(f, dir, base, path, perm, fill)
	}
	tmp, err := createTemp(dir, base)
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := finish(tmp, perm, fill); err != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}

// finish fills f, sets its permissions, syncs and closes it.
func finish(f *os.File, perm os.FileMode, fill func(w io.Writer) error) error {
	err := fillSync(f, perm, fill)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// fillSync fills f, sets its permissions and syncs it.
func fillSync(f *os.File, perm os.FileMode, fill func(w io.Writer) error) error {
	err := fill(f)
	if err == nil {
		err = f.Chmod(perm)
	}
	if err == nil {
		err = f.Sync()
	}
	return err
}

// tempMark separates a destination's name from the temporary suffix.
const tempMark = ".tmp-"

// createTemp creates the hidden temporary file for base in dir, named after
// this process and host.
func createTemp(dir, base string) (*os.File, error) {
	return os.CreateTemp(dir, tempPrefix(base)+"*")
}

// tempPrefix is the start of a temporary file name for base, naming this
// process and host; a random part completes it.
func tempPrefix(base string) string {
	return "." + base + tempMark + strconv.Itoa(os.Getpid()) + "-" + hostTag() + "-"
}

// hostTag is a short hash of the host name: a pid means something only on
// the host that made the file (directories may be shared). It is computed
// once: every write names its temporary file with it.
var hostTag = sync.OnceValue(func() string {
	name, _ := os.Hostname()
	h := fnv.New32a()
	h.Write([]byte(name))
	return fmt.Sprintf("%08x", h.Sum32())
})

// legacyAge is how old a temporary file of the older pattern, which names
// no process, must be before it is removed.
const legacyAge = time.Hour

// removeStale removes the temporary files in dir left by writers that have
// died. Errors are ignored: this is cleaning, not the write.
func removeStale(dir string) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	host := hostTag()
	for _, e := range ents {
		name := e.Name()
		i := strings.LastIndex(name, tempMark)
		if !strings.HasPrefix(name, ".") || i < 0 || !e.Type().IsRegular() {
			continue
		}
		suffix := name[i+len(tempMark):]
		f := strings.Split(suffix, "-")
		switch {
		case len(f) == 3 && f[1] == host:
			pid, err := strconv.Atoi(f[0])
			if err != nil || pid == os.Getpid() || pidalive.Alive(pid) {
				continue
			}
		case len(f) == 1 && isDigits(f[0]):
			info, err := e.Info()
			if err != nil || time.Since(info.ModTime()) < legacyAge {
				continue
			}
		default:
			continue
		}
		os.Remove(filepath.Join(dir, name))
	}
}

func isDigits(s string) bool {
	for _, c := range s {
		if c < '0' || c > '9' {
			return false
		}
	}
	return s != ""
}

// randomSuffix returns a short random decimal string.
func randomSuffix() string {
	var b [4]byte
	_, _ = rand.Read(b[:])
	return strconv.FormatUint(uint64(b[0])|uint64(b[1])<<8|uint64(b[2])<<16|uint64(b[3])<<24, 10)
}
