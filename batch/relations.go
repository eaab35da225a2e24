package batch

import (
	"github.com/sdcengine/argus/pluginsdk"
	"github.com/sdcengine/argus/pluginsdk/relations"
)

// addRelations fills the problem's linear relations from its tables: every
// (sub)total equals the sum of its children along each dimension.
func addRelations(p *pluginsdk.Problem) error {
	return relations.Fill(p, relations.Options{})
}
