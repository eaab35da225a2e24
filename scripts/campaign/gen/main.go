// Command gen writes generated microdata for the kill/hang campaign: n
// records of three classifying variables A (1..na), B (1..nb), C (1..nc)
// and a lognormal magnitude V with two decimals, in the fixed-width layout
// of scripts/campaign/big.rda. The same seed gives the same file.
//
//	go run ./scripts/campaign/gen -n 200000 -a 300 -b 100 -c 1 -o m.asc
package main

import (
	"bufio"
	"flag"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
)

func main() {
	n := flag.Int("n", 200000, "records")
	na := flag.Int("a", 300, "codes of A")
	nb := flag.Int("b", 100, "codes of B")
	nc := flag.Int("c", 1, "codes of C")
	seed := flag.Uint64("seed", 42, "random seed")
	out := flag.String("o", "m.asc", "output file")
	flag.Parse()
	f, err := os.Create(*out)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	w := bufio.NewWriter(f)
	r := rand.New(rand.NewPCG(*seed, 0))
	for range *n {
		v := math.Exp(8 + 2*r.NormFloat64())
		fmt.Fprintf(w, "%4d%4d%2d%12.2f\n", 1+r.IntN(*na), 1+r.IntN(*nb), 1+r.IntN(*nc), v)
	}
	if err := w.Flush(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	if err := f.Close(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
