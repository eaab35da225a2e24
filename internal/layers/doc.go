// Package layers holds the import-rule test of the module: imports go one
// way only, argusio → pluginsdk → batch → host and plugins, with the leaves
// (internal/..., pluginsdk/cellstatus, pluginsdk/verdict) below them all.
// See docs/architecture.md. The package has no code of its own.
package layers
