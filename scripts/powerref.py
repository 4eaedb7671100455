#!/usr/bin/python3
"""Reference values of the paired t-test's power for package stats.

Writes stats/testdata/power_reference.json, which TestPowerReference
reads (not run by go test; CI machines have no statsmodels). Regenerate
with Debian's python, which has python3-statsmodels (a pyenv python3
earlier on PATH may not):

    /usr/bin/python3 scripts/powerref.py > stats/testdata/power_reference.json

Every figure is statsmodels' TTestPower (two-sided, alpha 0.05, power
0.8):

- "mde": for (n, sd), the minimum detectable effect sd * d, d the root of
  TTestPower().power(d, n) = 0.8 found by brentq to 1e-15 relative.
  solve_power(effect_size=None, ...) finds the same root only to about
  1e-4 (its bracketing stops early: 6e-5 relative at n = 5000), which the
  script checks ("solve_power" holds its figure) before writing.
- "detect": for (sd, delta), the least integer n >= 2 with
  TTestPower().power(delta/sd, n) >= 0.8, found from the normal
  approximation by stepping while the power at n-1 still reaches 0.8 or
  the power at n does not.

n stays within 10^5: scipy's noncentral t (Boost) aborts at larger
degrees of freedom. Seeded: a rerun writes the same file.
"""
import json
import math
import random
import warnings

from scipy.optimize import brentq
from statsmodels.stats.power import TTestPower

warnings.simplefilter("ignore")
P = TTestPower()
ALPHA, POWER = 0.05, 0.8


def power(d, n):
    return float(P.power(effect_size=d, nobs=n, alpha=ALPHA, alternative="two-sided"))


def factor(n):
    z = 2.8016 / math.sqrt(n)  # the normal approximation, near the root
    return brentq(lambda d: power(d, n) - POWER, 0.9 * z, 10 * z, xtol=1e-300, rtol=1e-15)


def least_n(d):
    # the normal approximation, within a few of the answer (solve_power's
    # expanding bracket reaches degrees of freedom where scipy aborts)
    n = max(2, math.ceil((2.8015852 / d) ** 2 + 1.959964**2 / 2))
    while n > 2 and power(d, n - 1) >= POWER:
        n -= 1
    while power(d, n) < POWER:
        n += 1
    return n


random.seed(40)
mde = []
ns = [2, 3, 4, 5, 6, 8, 10, 15, 20, 30, 50, 100, 200, 500, 1000, 5000, 10000, 100000]
for n in ns + [random.randint(2, 3000) for _ in range(20)]:
    sd = random.choice([1.0, 0.3, 0.05, round(random.uniform(0.001, 2), 6)])
    d = factor(n)
    sm = P.solve_power(effect_size=None, nobs=n, alpha=ALPHA, power=POWER, alternative="two-sided")
    assert abs(sm - d) <= 1e-3 * d, (n, sm, d)
    mde.append({"n": n, "sd": sd, "mde": sd * d, "solve_power": sd * sm})

detect = []
cases = [(1.0, 0.5), (1.0, 1.0), (1.0, 2.0), (1.0, 0.1), (0.3, 0.005), (0.25, 0.01), (1.0, 10.0), (1.0, 100.0),
         (0.2, 0.001), (0.01, 0.5)]
for _ in range(25):
    sd = round(random.uniform(0.01, 1), 6)
    cases.append((sd, round(sd * random.uniform(0.005, 3), 6)))
for sd, delta in cases:
    detect.append({"sd": sd, "delta": delta, "n": least_n(delta / sd)})

print(json.dumps({"source": "statsmodels TTestPower, two-sided, alpha 0.05, power 0.8 (scripts/powerref.py)",
                  "mde": mde, "detect": detect}, indent=1))
