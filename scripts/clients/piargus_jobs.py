"""piargus's own examples, run by piargus against argus in place of TauArgus.

Usage: python3 piargus_jobs.py PROGRAM DATA_DIR OUT_DIR

PROGRAM is what piargus.TauArgus is given (argus, or a wrapper that runs
argus.exe under Wine). DATA_DIR holds piargus's examples/data. For each job
it prints one line: the job, the exit status piargus saw, and the cell
statuses of the table piargus read back, and writes the table piargus read
to OUT_DIR/NAME.csv. Exits 1 if piargus reported a failure.
"""
import sys
from pathlib import Path

import pandas as pd
import piargus as pa


def tabledata_job(data, method):
    # piargus's examples/tabledata_basic.py with the method as a parameter.
    table = pa.TableData(pd.read_csv(data / "tabledata.csv", dtype={"activity": str}),
                         ["activity", "size"], "val",
                         safety_rule={pa.frequency_rule(3, 10), pa.dominance_rule(1, 85)},
                         frequency="n_obs", top_contributors=["max"],
                         suppress_method=method)
    return table, [table]


def microdata_job(data, method):
    # piargus's examples/microdata_basic.py with the method as a parameter.
    micro = pa.MicroData(pd.read_csv(data / "microdata.csv"))
    table = pa.Table(["symbol", "regio"], "income",
                     safety_rule=pa.percent_rule(p=10), suppress_method=method)
    return micro, [table]


JOBS = [
    ("tabledata-GH", tabledata_job, pa.GHMITER),
    ("tabledata-MOD", tabledata_job, pa.MODULAR),
    ("tabledata-OPT", tabledata_job, pa.OPTIMAL),
    ("microdata-GH", microdata_job, pa.GHMITER),
    ("microdata-MOD", microdata_job, pa.MODULAR),
    ("microdata-OPT", microdata_job, pa.OPTIMAL),
]


def main():
    program, data, out = sys.argv[1], Path(sys.argv[2]), Path(sys.argv[3])
    tau = pa.TauArgus(program)
    failed = 0
    for name, make, method in JOBS:
        inputs, tables = make(data, method)
        if inputs in tables:  # table data: the input is the table
            job = pa.Job(inputs, directory=out / name, name=name)
        else:
            job = pa.Job(inputs, tables, directory=out / name, name=name)
        try:
            report = tau.run(job)
            result = tables[0].load_result()
        except Exception as e:  # piargus raises on a failed run
            failed += 1
            print(f"FAIL  {name}: {type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}")
            continue
        counts = result.status().value_counts().sort_index()
        result.dataframe().to_csv(out / f"{name}.csv")
        print(f"PASS  {name}: {report.status} <{report.returncode}>; statuses "
              + ", ".join(f"{k} {v}" for k, v in counts.items()))
    print(f"{len(JOBS) - failed} passed, {failed} failed")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
