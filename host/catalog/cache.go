package catalog

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/sdcengine/argus/argusio/atomicfile"
	"github.com/sdcengine/argus/internal/contract/wire"
	"github.com/sdcengine/argus/pluginsdk"
)

// cacheKey identifies one version of a binary as described to this host's
// contract minor: the minor, its path, size, times, inode and pinned
// checksum, hashed. It returns "" when the file cannot be read.
func cacheKey(path, pin string) string {
	st, err := os.Stat(path)
	if err != nil {
		return ""
	}
	h := sha256.New()
	fmt.Fprintf(h, "argus-describe-v1\x00minor %d\x00%s\x00%d\x00%d\x00%s\x00%s", wire.ProtocolMinor, path, st.Size(), st.ModTime().UnixNano(), fileIdentity(st), pin)
	return hex.EncodeToString(h.Sum(nil))
}

func cacheFile(dir, key string) string { return filepath.Join(dir, "describe-"+key+".json") }

// readCache returns the cached description of the binary with this key.
func readCache(dir, key string) (pluginsdk.PluginInfo, bool) {
	var info pluginsdk.PluginInfo
	b, err := os.ReadFile(cacheFile(dir, key))
	if err != nil || json.Unmarshal(b, &info) != nil || checkInfo(info) != nil {
		return info, false
	}
	return info, true
}

// writeCache caches a description; a cache that cannot be written is no
// error (the binary is described again next time).
func writeCache(dir, key string, info pluginsdk.PluginInfo) {
	if os.MkdirAll(dir, 0o700) != nil {
		return
	}
	_ = atomicfile.Write(cacheFile(dir, key), 0o600, func(w io.Writer) error { return json.NewEncoder(w).Encode(info) })
}
