#!/usr/bin/python3
"""Reference values for the statistics of package stats.

Writes stats/testdata/statref.json, which the tests of package stats
read (CI machines have no scipy). Regenerate with Debian's
python, which has python3-scipy, python3-statsmodels and python3-mpmath (a
pyenv python3 earlier on PATH may not):

    /usr/bin/python3 scripts/statref.py -o stats/testdata/statref.json

It takes a few minutes (the 40-digit mpmath integrals). Everything is
seeded, so a rerun with the same library versions writes the same file.

Sections:
  nct     the noncentral t CDF at (t, df, nc): scipy.stats.nct.cdf (Boost)
          and an independent 40-digit mpmath integral. Boost sums a
          Poisson series whose halves cancel for t < 0 < nc, and loses
          digits for large nc at small df, so the test holds NCTCDF to the
          mpmath value and reports where scipy itself is off.
  effect  per-query differences (stored raw when small) -> mean, sd,
          Cohen's d_z, its 95% CI by inverting scipy.stats.nct.cdf with
          brentq (Steiger & Fouladi / MBESS ci.sm), the paired t-test
          p-value and its 95% t interval.
  adjust  Holm and Benjamini-Hochberg adjusted p-values from
          statsmodels.stats.multitest.multipletests.
  sign    the two-sided sign test of a wins against b losses:
          scipy.stats.binomtest(min(a, b), a + b, 0.5).pvalue, and the
          binomial tail summed exactly in rationals (or in 40-digit mpmath
          past 2,000 trials), for interleaving's preference.

--sections adjust,sign rewrites only those sections of the existing file
(the nct and effect sections take minutes).
"""

import argparse
import json
import math
import sys
from fractions import Fraction

import mpmath as mp
import numpy as np
import scipy
import scipy.optimize
import scipy.stats as st
import statsmodels
from statsmodels.stats.multitest import multipletests

mp.mp.dps = 40


def num(x):
    """A float for JSON; NaN and infinities (scipy's failures) as null."""
    x = float(x)
    return x if math.isfinite(x) else None


def nct_cdf_z(t, n, d):
    """P(T <= t) conditioning on the normal: T <= t iff Z + d <= t*S, and
    given Z the chi-square gives P(S >= (Z+d)/t) by the incomplete gamma
    function. Not the formula NCTCDF integrates (that one conditions on
    S), so the two check each other. Slow for large df."""
    a = n / 2
    if t > 0:
        def g(z):
            return mp.npdf(z) * mp.gammainc(a, n * (z + d) ** 2 / (2 * t * t), mp.inf, regularized=True)
        lo, hi, base = -d, mp.mpf(45), mp.ncdf(-d)
    else:
        def g(z):
            return mp.npdf(z) * mp.gammainc(a, 0, n * (z + d) ** 2 / (2 * t * t), regularized=True)
        lo, hi, base = mp.mpf(-45), -d, mp.mpf(0)
    lo, hi = max(lo, mp.mpf(-45)), min(hi, mp.mpf(45))
    if lo >= hi:  # the normal has no mass left there (below 1e-440)
        return base
    z0, w = t - d, abs(t) / mp.sqrt(2 * n)  # where the chi-square steps, and how fast
    pts = {lo, hi}
    for k in (0, 1, -1, 3, -3, 10, -10, 30, -30):
        if lo < z0 + k * w < hi:
            pts.add(z0 + k * w)
    for p in (-30, -10, -3, 0, 3, 10, 30):
        if lo < p < hi:
            pts.add(mp.mpf(p))
    return base + mp.quad(g, sorted(pts), maxdegree=10)


def nct_cdf_s(t, n, d):
    """P(T <= t) = E[Phi(t*S - d)] over S = sqrt(chi2_n/n), for large df
    where the incomplete gamma is slow; 40 digits carry the n*log(n)
    terms of the density."""
    lc = mp.log(2) + (n / 2) * mp.log(n / 2) - mp.loggamma(n / 2)

    def g(s):
        return mp.ncdf(t * s - d) * mp.exp(lc + (n - 1) * mp.log(s) - n * s * s / 2) if s > 0 else mp.mpf(0)
    w = 1 / mp.sqrt(2 * n)
    hi = 1 + 40 * w
    pts = {mp.mpf(0), hi}
    for k in (0, 1, -1, 3, -3, 6, -6, 10, -10, 15, -15):
        if 0 < 1 + k * w < hi:
            pts.add(1 + k * w)
    for k in (0, 1, -1, 3, -3, 10, -10):
        if t != 0 and 0 < (d + k) / t < hi:
            pts.add((d + k) / t)
    return mp.quad(g, sorted(pts), maxdegree=10)


def nct_cdf_mp(t, df, nc):
    t, n, d = mp.mpf(t), mp.mpf(df), mp.mpf(nc)
    if t == 0:
        return mp.ncdf(-d)
    return nct_cdf_z(t, n, d) if df <= 1000 else nct_cdf_s(t, n, d)


def nct_section():
    out = []
    for df in (1, 2, 5, 49, 1000, 1e5, 1e7):
        s_lo, s_hi = (math.sqrt(st.chi2.ppf(q, df) / df) for q in (0.001, 0.999))
        for nc in (0, 0.5, -0.5, 3, -3, 40, -40, 300, -300, 3000, -3000):
            # the bulk of T = (Z + nc)/S: Z at -5, 0, 5 and S at its
            # 0.1%, median-ish and 99.9% points; then 0 and a far tail
            ts = {0.0, -1.0 - abs(nc)}
            for z in (-5, 0, 5):
                for s in (s_lo, 1.0, s_hi):
                    ts.add(float('%.6g' % ((nc + z) / s)))
            for t in sorted(ts):
                sp = st.nct.cdf(t, df, nc)
                out.append({'t': t, 'df': df, 'nc': nc, 'scipy': num(sp), 'mp': float(nct_cdf_mp(t, df, nc))})
    # both mpmath formulas on a few points, so neither is taken on trust
    for t, df, nc in ((1.5, 1000, 0.5), (-2.0, 1000, 3), (45.0, 1000, 40), (2990.0, 1000, 3000)):
        a, b = nct_cdf_z(mp.mpf(t), mp.mpf(df), mp.mpf(nc)), nct_cdf_s(mp.mpf(t), mp.mpf(df), mp.mpf(nc))
        assert abs(a - b) <= mp.mpf(10) ** -25 * abs(a), (t, df, nc, a, b)
    return out


def exact_summary(x):
    """Mean and sample sd from exact sums (of the values and of their
    exact squares, as aggregate.Stat keeps them), each figure rounded
    once."""
    n = len(x)
    s = sum(Fraction(v) for v in x)
    sq = sum(Fraction(v) ** 2 for v in x)
    var = (sq - s * s / n) / (n - 1)
    return float(s / n), math.sqrt(float(max(var, 0)))


def t975(df):
    """The 0.975 quantile of Student's t by brentq on t.sf: scipy's own
    t.ppf is off by 1e-9 relative at df = 49."""
    return scipy.optimize.brentq(lambda q: st.t.sf(q, df) - 0.025, 1, 20, xtol=1e-300, rtol=4 * np.finfo(float).eps)


def bracket(f, x, step):
    """lo < hi around the root of the decreasing f, from x outward in
    doubling steps (Boost aborts the process for |nc| past about 6e4, so
    no wild first guess)."""
    lo = hi = x
    if f(x) > 0:
        while f(hi) > 0:
            lo, hi, step = hi, hi + step, 2 * step
    else:
        while f(lo) < 0:
            hi, lo, step = lo, lo - step, 2 * step
    return lo, hi


def effect_ci(t, df, p):
    """The noncentrality with nct.cdf(t, df, nc) = p, by brentq on scipy
    (nct.cdf falls as nc grows), and the same on the 40-digit mpmath CDF
    where scipy is not accurate enough to check 1e-8."""
    sd = math.sqrt(1 + t * t / (2 * df))
    def f(d):
        return st.nct.cdf(t, df, d) - p
    lo, hi = bracket(f, t, sd)
    sp = scipy.optimize.brentq(f, lo, hi, xtol=1e-300, rtol=4 * np.finfo(float).eps, maxiter=500)
    tm, dfm = mp.mpf(t), mp.mpf(df)
    def g(d):
        return nct_cdf_mp(tm, dfm, d) - p
    eps = 1e-7 * max(abs(sp), 1)
    lo, hi = mp.mpf(sp - eps), mp.mpf(sp + eps)
    while g(lo) < 0:
        lo -= 10 * (hi - lo)
    while g(hi) > 0:
        hi += 10 * (hi - lo)
    m = mp.findroot(g, (lo, hi), solver='anderson', tol=mp.mpf(10) ** -30, verify=False, maxsteps=100)
    assert abs(g(m)) < 1e-25, (t, df, p, m, g(m))
    return sp, float(m)


def effect_section():
    out = []
    cases = [  # n, mean, sd, seed, kind
        (2, 0.3, 1.0, 1, 'normal'),
        (3, 0.5, 1.0, 2, 'normal'),
        (3, -2.0, 0.5, 3, 'normal'),
        (3, 1.0, 3e-4, 4, 'normal'),  # d_z in the thousands at df = 2 (Boost aborts past nc = 65536)
        (10, 0.1, 1.0, 5, 'normal'),
        (10, -0.8, 0.3, 6, 'normal'),
        (50, 0.02, 0.1, 7, 'normal'),
        (50, -0.3, 0.2, 8, 'normal'),
        (1000, 0.01, 0.2, 9, 'normal'),
        (1000, 0.05, 0.0, 10, 'hits'),  # per-query hit@k differences in {-1, 0, 1}
        (100000, 0.003, 0.3, 11, 'normal'),
        (100000, -0.01, 0.25, 12, 'normal'),
        (100000, 0.5, 0.2, 13, 'normal'),  # t near 800
    ]
    for n, mu, sigma, seed, kind in cases:
        print('effect', n, mu, sigma, file=sys.stderr)
        rng = np.random.default_rng(seed)
        if kind == 'hits':
            x = rng.choice([-1.0, 0.0, 1.0], size=n, p=[0.2, 0.55, 0.25])
        else:
            x = np.clip(rng.normal(mu, sigma, size=n), -1, 1)
        x = [float(v) for v in x]
        mean, sd = exact_summary(x)
        d = mean / sd
        t = d * math.sqrt(n)
        df = n - 1
        tt = st.ttest_1samp(x, 0)
        half = t975(df) * sd / math.sqrt(n)
        lo, hi = effect_ci(t, df, 0.975), effect_ci(t, df, 0.025)
        rec = {
            'name': '%s_n%d_seed%d' % (kind, n, seed), 'n': n, 'mean': mean, 'sd': sd, 'd': d,
            'lo': lo[0] / math.sqrt(n), 'hi': hi[0] / math.sqrt(n),
            'lo_mp': lo[1] / math.sqrt(n), 'hi_mp': hi[1] / math.sqrt(n),
            # the t-test from the exact mean and sd, and scipy's own from the raw values
            'p': float(2 * st.t.sf(abs(mean / (sd / math.sqrt(n))), df)), 'p_scipy': float(tt.pvalue),
            'tlo': mean - half, 'thi': mean + half,
        }
        if n <= 1000:
            rec['x'] = x
        out.append(rec)
    # summaries of click-log size, where no raw values are kept: d_z from
    # 0.001 to 1 at n = 10^7 puts nc between 3 and 3162
    for n, mean, sd in ((10**7, 0.001, 1.0), (10**7, -0.02, 0.5), (10**7, 0.3, 0.3), (10**6, 0.05, 0.2)):
        d = mean / sd
        t = d * math.sqrt(n)
        lo, hi = effect_ci(t, n - 1, 0.975), effect_ci(t, n - 1, 0.025)
        out.append({'name': 'summary_n%d_d%g' % (n, d), 'n': n, 'mean': mean, 'sd': sd, 'd': d,
                    'lo': lo[0] / math.sqrt(n), 'hi': hi[0] / math.sqrt(n),
                    'lo_mp': lo[1] / math.sqrt(n), 'hi_mp': hi[1] / math.sqrt(n)})
    return out


def adjust_section():
    rng = np.random.default_rng(42)
    vectors = {
        'four': [0.01, 0.04, 0.03, 0.005],
        'ties': [0.02, 0.02, 0.02, 0.5, 0.01, 0.01],
        'zero_one': [0.0, 1.0, 0.5, 0.0, 1e-300, 0.049],
        'single': [0.03],
        'ones': [1.0, 1.0, 1.0],
        'fifty': [float(v) for v in rng.uniform(size=50) ** 3],
        'fifty_ties': [float(v) for v in np.round(rng.uniform(size=50) ** 2, 2)],
    }
    out = []
    for name, p in vectors.items():
        out.append({'name': name, 'p': p,
                    'holm': [float(v) for v in multipletests(p, method='holm')[1]],
                    'bh': [float(v) for v in multipletests(p, method='fdr_bh')[1]]})
    return out


def sign_exact(a, b):
    """2 P(X <= min(a, b)), X ~ Binomial(a + b, 1/2), at most 1."""
    k, n = min(a, b), a + b
    if n == 0:
        return 1.0
    if n <= 2000:
        tail = Fraction(sum(math.comb(n, i) for i in range(k + 1)), 2 ** n)
        return float(min(2 * tail, Fraction(1)))
    # past 2,000 trials: the tail summed downward from its largest term in
    # 40 digits, until a term no longer counts
    term = mp.exp(mp.loggamma(n + 1) - mp.loggamma(k + 1) - mp.loggamma(n - k + 1) - n * mp.log(2))
    tail, i = mp.mpf(0), k
    while i >= 0 and term > tail * mp.mpf(10) ** -45:
        tail += term
        term *= mp.mpf(i) / (n - i + 1)
        i -= 1
    return float(min(2 * tail, mp.mpf(1)))


def sign_section():
    rng = np.random.default_rng(25)
    cases = [(0, 0), (0, 1), (1, 0), (1, 1), (0, 5), (3, 7), (5, 5), (10, 0),
             (12, 40), (500, 540), (49_000, 51_000), (5_000_000, 5_003_000),
             (3_000_000, 7_000_000), (0, 1000), (1000, 1001)]
    for _ in range(40):
        n = int(rng.integers(1, 200_000))
        # within a few standard deviations of even, where p is not 0
        a = min(n, max(0, round(n / 2 + rng.normal(0, 2) * math.sqrt(n) / 2)))
        cases.append((a, n - a))
    out = []
    for a, b in cases:
        sp = st.binomtest(min(a, b), a + b, 0.5).pvalue if a + b > 0 else 1.0
        out.append({'a': a, 'b': b, 'p_scipy': num(sp), 'p_exact': sign_exact(a, b)})
    return out


SECTIONS = {'adjust': adjust_section, 'effect': effect_section, 'nct': nct_section, 'sign': sign_section}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('-o', default='stats/testdata/statref.json')
    ap.add_argument('--sections', default=','.join(SECTIONS),
                    help='the sections to (re)write; others are kept from the existing file')
    args = ap.parse_args()
    names = args.sections.split(',')
    doc = {}
    if set(names) != set(SECTIONS):
        with open(args.o) as f:
            doc = json.load(f)
    doc['generated_by'] = 'scripts/statref.py'
    doc['versions'] = {'scipy': scipy.__version__, 'statsmodels': statsmodels.__version__,
                       'mpmath': mp.__version__, 'numpy': np.__version__}
    for name in names:
        doc[name] = SECTIONS[name]()
    with open(args.o, 'w') as f:
        json.dump(doc, f, allow_nan=False, separators=(',', ':'))
        f.write('\n')


if __name__ == '__main__':
    main()
