#!/usr/bin/python3
"""Reference values of RBO for the tests of package metrics.

Writes metrics/testdata/rbo_reference.json from Corsi and Urbano's
reference implementation of RBO ("The Treatment of Ties in Rank-Biased
Overlap", SIGIR 2024; rbo/Python/rbo.py of
https://github.com/julian-urbano/sigir2024-rbo, MIT licence), which is
not part of this repository: fetch it and give its path.

    /usr/bin/python3 scripts/rboref.py PATH/TO/rbo.py > metrics/testdata/rbo_reference.json

The rankings have no ties (rankeval breaks them by its tie policy
before comparing), so the w-variant is Webber et al.'s RBO with uneven
lengths. Seeded: a rerun writes the same file.
"""
import json
import random
import sys
import warnings

warnings.simplefilter("ignore")  # numpy's mean of an empty slice, unread
ns = {}
exec(open(sys.argv[1]).read(), ns)
random.seed(40)
rows = []
for i in range(30):
    a = random.sample(range(30), random.randint(1, 15))
    b = random.sample(range(30), random.randint(1, 15))
    if i % 5 == 0:  # a prefix of a with two neighbours swapped
        b = a[:]
        if len(b) > 1:
            j = random.randrange(len(b) - 1)
            b[j], b[j + 1] = b[j + 1], b[j]
        b = b[:random.randint(1, len(b))]
    p = random.choice([0.5, 0.8, 0.9, 0.95, 0.98])
    r = ns["rbo"](["i%d" % v for v in a], ["i%d" % v for v in b], p, ties="w")
    rows.append({"a": a, "b": b, "p": p, "min": float(r["min"]), "res": float(r["res"]), "ext": float(r["ext"])})
json.dump({"source": "Corsi and Urbano 2024, rbo/Python/rbo.py, ties='w'", "rows": rows}, sys.stdout, indent=1)
print()
