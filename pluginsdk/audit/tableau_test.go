package audit

import (
	"context"
	"fmt"
	"testing"

	"github.com/sdcengine/argus/pluginsdk"
	"github.com/sdcengine/argus/pluginsdk/cellstatus"
	"github.com/sdcengine/argus/pluginsdk/plugintest"
)

// certCase is a random table and pattern on which the basis certificates
// (tableau.go) settle directions.
type certCase struct {
	name string
	p    *pluginsdk.Problem
	st   []cellstatus.Status
}

func certCases() []certCase {
	var out []certCase
	for seed := range uint64(6) {
		for _, c := range []struct {
			sizes []int
			share float64
		}{{[]int{9, 8}, 0.45}, {[]int{5, 4, 3}, 0.7}, {[]int{8, 8, 4}, 0.45}} {
			p := plugintest.Grid(plugintest.GridSpec{Sizes: c.sizes, Seed: seed, PrimaryFraction: 0.15})
			out = append(out, certCase{fmt.Sprintf("%v/%g/seed=%d", c.sizes, c.share, seed), p, randomStatuses(p, c.share, seed)})
		}
	}
	return out
}

// shortcutMismatches audits every case with opts (exact bounds) and counts
// the bounds that differ from the plain path (one LP per direction, no
// shortcut), each reported as an error when report is set; add receives
// every audit's counts.
func shortcutMismatches(t *testing.T, cases []certCase, opts Options, report bool, add func(Counts)) (mismatches int) {
	t.Helper()
	ctx := context.Background()
	for _, tc := range cases {
		ref, err := Suppression(ctx, tc.p, tc.st, Options{Threads: 1, noReuse: true, noDifferencing: true})
		if err != nil {
			t.Fatal(err)
		}
		got, err := Suppression(ctx, tc.p, tc.st, opts)
		if err != nil {
			t.Fatal(err)
		}
		add(got.Counts)
		for i := range ref.Lower {
			if near(got.Lower[i], ref.Lower[i]) && near(got.Upper[i], ref.Upper[i]) {
				continue
			}
			mismatches++
			if report {
				t.Errorf("%s cell %d: [%g, %g], one LP per direction [%g, %g]", tc.name, i,
					got.Lower[i], got.Upper[i], ref.Lower[i], ref.Upper[i])
			}
		}
	}
	return mismatches
}

// certMismatches counts the certificate cases' bounds that differ from the
// plain path (shortcutMismatches) and the directions the certificates
// settled.
func certMismatches(t *testing.T, opts Options) (mismatches, certified int) {
	t.Helper()
	mismatches = shortcutMismatches(t, certCases(), opts, !opts.wrongCertificate, func(c Counts) { certified += c.certified })
	return mismatches, certified
}

// TestBasisCertificates: the exact bounds with the basis certificates equal
// those of one LP per direction on random two- and three-dimensional
// tables, and the certificates settle directions there (the path is
// exercised, not only compiled).
func TestBasisCertificates(t *testing.T) {
	bad, certified := certMismatches(t, Options{Threads: 1})
	if bad > 0 {
		t.Errorf("%d bounds differ", bad)
	}
	if certified == 0 {
		t.Error("no direction settled by a basis certificate: the test does not exercise them")
	}
	t.Logf("%d directions certified", certified)
}

// TestBasisCertificatesWrongSign: a certificate with its sign test inverted
// (wrongCertificate) gives bounds that differ from one LP per direction on
// the same tables: the comparison of TestBasisCertificates would catch a
// wrong optimality test.
func TestBasisCertificatesWrongSign(t *testing.T) {
	bad, certified := certMismatches(t, Options{Threads: 1, wrongCertificate: true})
	if certified == 0 || bad == 0 {
		t.Errorf("inverted sign test: %d directions certified, %d bounds wrong; want both > 0", certified, bad)
	}
	t.Logf("inverted sign test: %d directions certified, %d bounds wrong", certified, bad)
}
