"""Independent scalar references: the paper's published code (Lee et al. 2025, App. C),
transcribed line by line, and textbook formulas written with plain floats."""

from math import sqrt

from scipy.stats import norm


def clip(x, low=0.0, high=1.0):
    return max(low, min(high, x))


def point_estimator(p, q0, q1):
    th = (p + q0 - 1) / (q0 + q1 - 1)
    return clip(th)


def confidence_interval(p, q0, q1, n, m0, m1, alpha=0.05):
    z = norm.ppf(1 - alpha / 2)
    p, q0, q1 = (n * p + z**2 / 2) / (n + z**2), (m0 * q0 + 1) / (m0 + 2), (m1 * q1 + 1) / (m1 + 2)
    n, m0, m1 = n + z**2, m0 + 2, m1 + 2
    th = (p + q0 - 1) / (q0 + q1 - 1)
    dth = 2 * z**2 * (-(1 - th) * q0 * (1 - q0) / m0 + th * q1 * (1 - q1) / m1)
    se = sqrt(p * (1 - p) / n + (1 - th) ** 2 * q0 * (1 - q0) / m0 + th**2 * q1 * (1 - q1) / m1) / (
        q0 + q1 - 1
    )
    return clip(th + dth - z * se), clip(th + dth + z * se)
