package cli

import (
	"context"
	"fmt"
	"sync"

	"github.com/nats-io/nats.go"
	"github.com/rs/zerolog"

	"github.com/sdcengine/argus/host/catalog"
	"github.com/sdcengine/argus/host/jobqueue"
	"github.com/sdcengine/argus/pluginsdk"
)

// connectItems connects a batch job to the work queue of --items-nats
// and has its runner hand the plugins' work items to it (contract 1.4).
// The returned function closes the connection.
func connectItems(ctx context.Context, a batchArgs, prot *protector, log zerolog.Logger) (func(), error) {
	var opts []nats.Option
	if a.itemsCreds != "" {
		opts = append(opts, nats.UserCredentials(a.itemsCreds))
	}
	if a.itemsCA != "" {
		opts = append(opts, nats.RootCAs(a.itemsCA))
	}
	q, err := jobqueue.Connect(ctx, a.itemsNATS, opts...)
	if err != nil {
		return nil, fmt.Errorf("option --items-nats: %w", err)
	}
	sums := pluginSums{}
	prot.run.Items = func(e *catalog.Entry, job string) pluginsdk.ItemRunner {
		sum, err := sums.get(e)
		if err != nil {
			log.Warn().Err(err).Str("plugin", e.Name()).Msg("plugin checksum unknown; its work items run in the plugin")
			return nil
		}
		return q.Dispatcher(e.Name(), sum, job, log)
	}
	return q.Close, nil
}

// pluginSums caches plugin binaries' checksums by path.
type pluginSums struct {
	mu sync.Mutex
	m  map[string]string
}

func (s *pluginSums) get(e *catalog.Entry) (string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if sum, ok := s.m[e.Path]; ok {
		return sum, nil
	}
	sum, err := catalog.Checksum(e.Path)
	if err != nil {
		return "", err
	}
	if s.m == nil {
		s.m = map[string]string{}
	}
	s.m[e.Path] = sum
	return sum, nil
}

// itemPlugins returns the lookup of a worker's plugin binaries by name
// for its work items: the catalog's entry and its binary's checksum.
func itemPlugins(cat *catalog.Catalog) func(name string) (string, string, error) {
	sums := &pluginSums{}
	return func(name string) (string, string, error) {
		for _, e := range cat.Entries {
			if e.Name() == name {
				sum, err := sums.get(e)
				return e.Path, sum, err
			}
		}
		return "", "", fmt.Errorf("no plugin %s installed", name)
	}
}
