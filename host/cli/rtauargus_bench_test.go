package cli

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// BenchmarkRtauargusDatatest runs the jobs rtauargus writes for its
// datatest tables (split_tab vignette; corpus derived/rtauargus/csv):
// datatest1 (treff × cj × A10 × type_distrib, 689 rows, 4 dimensions) and
// datatest2 (the same × nuts1, 5612 rows, 5 dimensions, which τ-Argus's
// Modular cannot protect directly), as tab_rtauargus shapes them: a
// right-justified .tab, MAN(10), an apriori file with a u line and a pl line
// (10 % of the value, 0.00001 for zero) per secret cell, MOD(1,5,1,0,0) and
// an SBS output. The vignette's τ-Argus 4.2.3 run of datatest1 (secret cells
// is_secret_freq) took 301 s and gave 265 D. It reports secondaries,
// suppressed cost and the host audit of each job; it takes minutes (MOD's
// limit is 5 minutes per sub-table and a table without hierarchies is one
// sub-table). ARGUS_DATATEST_SUPPRESS replaces the method, e.g. "OPT(1,3)"
// or "GH(1,100,0,1)"; ARGUS_DATATEST_ARGS adds host arguments separated by
// spaces, e.g. "--param=MOD.start=net"; -bench=BenchmarkRtauargusDatatest/datatest2
// runs one.
func BenchmarkRtauargusDatatest(b *testing.B) {
	plugins := realPlugins(b)
	suppress := "MOD(1,5,1,0,0)"
	if s := os.Getenv("ARGUS_DATATEST_SUPPRESS"); s != "" {
		suppress = s
	}
	extra := strings.Fields(os.Getenv("ARGUS_DATATEST_ARGS"))
	for _, c := range []struct {
		name, file string
		dims       []string
		secret     string
	}{
		{"datatest1", "datatest1.csv", []string{"treff", "cj", "A10", "type_distrib"}, "is_secret_freq"},
		{"datatest2", "datatest2.csv", []string{"treff", "cj", "A10", "type_distrib", "nuts1"}, "is_secret_prim"},
	} {
		b.Run(c.name, func(b *testing.B) {
			dir := b.TempDir()
			secret, err := writeRtauargusJob(filepath.Join(corpusDir, "derived", "rtauargus", "csv", c.file), dir, c.name, c.dims, c.secret, suppress)
			if err != nil {
				b.Skipf("corpus: %v", err)
			}
			for b.Loop() {
				report := filepath.Join(dir, "report.json")
				args := append([]string{filepath.Join(dir, c.name+".arb"), filepath.Join(dir, "logbook.txt"), "--report=" + report}, extra...)
				code, out, errOut := run(b, plugins, args...)
				if code != ExitOK {
					b.Fatalf("exit %d\n%s%s", code, out, errOut)
				}
				var rep struct {
					Tables []struct {
						Primaries, Secondaries int
						SuppressedCost         float64 `json:"suppressed_cost"`
						Audit                  struct {
							Done           bool
							UnderProtected int `json:"under_protected"`
						}
					}
					Steps []struct {
						Command string
						Seconds float64
					}
				}
				raw, err := os.ReadFile(report)
				if err != nil {
					b.Fatal(err)
				}
				if err := json.Unmarshal(raw, &rep); err != nil {
					b.Fatal(err)
				}
				tab := rep.Tables[0]
				secs := 0.0
				for _, s := range rep.Steps {
					if strings.HasPrefix(s.Command, "<SUPPRESS>") {
						secs = s.Seconds
					}
				}
				b.Logf("%s: %d secret cells, %d primaries, %d secondaries, suppressed %.6g, %s %.0f s; audit done %v, %d under-protected",
					c.name, secret, tab.Primaries, tab.Secondaries, tab.SuppressedCost, suppress, secs, tab.Audit.Done, tab.Audit.UnderProtected)
				if !tab.Audit.Done || tab.Audit.UnderProtected > 0 {
					b.Errorf("audit: done %v, %d under-protected", tab.Audit.Done, tab.Audit.UnderProtected)
				}
				b.ReportMetric(float64(tab.Secondaries), "secondaries")
				b.ReportMetric(tab.SuppressedCost, "suppressed")
			}
		})
	}
}

// writeRtauargusJob writes name.tab, name.rda, name.hst and name.arb into
// dir from a datatest CSV; it returns the number of secret cells.
func writeRtauargusJob(csvPath, dir, name string, dims []string, secretCol, suppress string) (int, error) {
	f, err := os.Open(csvPath)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	recs, err := csv.NewReader(f).ReadAll()
	if err != nil {
		return 0, fmt.Errorf("%s: %w", csvPath, err)
	}
	col := map[string]int{}
	for i, h := range recs[0] {
		col[h] = i
	}
	need := append(append([]string(nil), dims...), "pizzas_tot", "nb_obs_rnd", secretCol)
	for _, h := range need {
		if _, ok := col[h]; !ok {
			return 0, fmt.Errorf("%s: no column %s", csvPath, h)
		}
	}
	// .tab: every column right-justified to its widest entry, comma-separated.
	var rows [][]string
	for _, r := range recs[1:] {
		v, err := strconv.ParseFloat(r[col["pizzas_tot"]], 64)
		if err != nil {
			return 0, fmt.Errorf("%s: pizzas_tot %q: %w", csvPath, r[col["pizzas_tot"]], err)
		}
		row := make([]string, 0, len(dims)+2)
		for _, d := range dims {
			row = append(row, r[col[d]])
		}
		rows = append(rows, append(row, strconv.FormatFloat(v, 'f', 2, 64), r[col["nb_obs_rnd"]]))
	}
	width := make([]int, len(rows[0]))
	for _, row := range rows {
		for i, x := range row {
			width[i] = max(width[i], len(x))
		}
	}
	var tab, rda, hst, pl strings.Builder
	for _, row := range rows {
		for i, x := range row {
			if i > 0 {
				tab.WriteByte(',')
			}
			fmt.Fprintf(&tab, "%*s", width[i], x)
		}
		tab.WriteByte('\n')
	}
	rda.WriteString("   <SEPARATOR> \",\"\n   <SAFE> \"s\"\n   <UNSAFE> \"u\"\n   <PROTECT> \"p\"\n")
	for _, d := range dims {
		fmt.Fprintf(&rda, "%s\n  <RECODEABLE>\n  <TOTCODE> \"Total\"\n", d)
	}
	rda.WriteString("pizzas_tot\n  <NUMERIC>\n  <DECIMALS> 2\nnb_obs\n  <FREQUENCY>\n")
	secret := 0
	for k, r := range recs[1:] {
		if r[col[secretCol]] != "TRUE" {
			continue
		}
		secret++
		codes := strings.Join(rows[k][:len(dims)], ",")
		v, _ := strconv.ParseFloat(rows[k][len(dims)], 64)
		level := math.Round(math.Abs(v)) / 10 // 10 %, rounded to one decimal
		lv := strconv.FormatFloat(level, 'f', -1, 64)
		if level == 0 {
			lv = "0.00001"
		}
		fmt.Fprintf(&hst, "%s,u\n", codes)
		fmt.Fprintf(&pl, "%s,pl,%s,%s\n", codes, lv, lv)
	}
	hst.WriteString(pl.String())
	var dimList strings.Builder
	for _, d := range dims {
		fmt.Fprintf(&dimList, "%q", d)
	}
	arb := fmt.Sprintf("// Batch generated as rtauargus does\n<OPENTABLEDATA> \"%[1]s.tab\"\n<OPENMETADATA> \"%[1]s.rda\"\n"+
		"<SPECIFYTABLE> %[2]s|\"pizzas_tot\"||\n<SAFETYRULE> MAN(10)\n<READTABLE> 1\n<APRIORI> \"%[1]s.hst\",1,\",\",0,0\n"+
		"<SUPPRESS> %[3]s\n<WRITETABLE> (1,4,,\"%[1]s.csv\")\n\n", name, dimList.String(), suppress)
	for ext, text := range map[string]string{".tab": tab.String(), ".rda": rda.String(), ".hst": hst.String(), ".arb": arb} {
		if err := os.WriteFile(filepath.Join(dir, name+ext), []byte(text), 0o644); err != nil {
			return 0, err
		}
	}
	return secret, nil
}
