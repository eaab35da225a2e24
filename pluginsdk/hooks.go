package pluginsdk

import "github.com/sdcengine/argus/pluginsdk/internal/sdkhook"

// The functions only the SDK's own packages call (the host's client, the
// test kit): passed through pluginsdk/internal/sdkhook so that they are
// not part of what an author sees.
func init() {
	sdkhook.LintInfo = lintInfo
	sdkhook.CheckParams = checkParamDiags
	sdkhook.ServeListener = serveListener
}
