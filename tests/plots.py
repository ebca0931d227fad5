"""Read back what an arviz-plots figure drew, so plot tests check content, not only titles."""

import numpy as np


def forest_intervals(pc, var: str) -> dict[tuple[str, str], tuple[float, float]]:
    """(model, unit) -> the (lower, upper) ends of the thin line ``plot_forest`` drew."""
    twig = pc.viz["twig"][var]
    unit = next(d for d in twig.dims if d != "model")
    out = {}
    for m in twig["model"].values:
        for u in twig[unit].values:
            line = twig.sel(model=m, **{unit: u}).item()
            if line is None:  # nothing drawn (a NaN interval)
                out[(str(m), str(u))] = (np.nan, np.nan)
                continue
            x = np.asarray(line.get_xdata(), float)
            out[(str(m), str(u))] = (float(x.min()), float(x.max()))
    return out


def check_forest(pc, fits, alpha: float = 0.05) -> None:
    """The forest plot drew each fit's own ``1 - alpha`` interval, per unit."""
    from judgebayes.results.plots import _unique_labels

    var = pc.viz["figure"].item()._suptitle.get_text().split(":")[0]
    drawn = forest_intervals(pc, var)
    for label, f in zip(_unique_labels(fits), fits, strict=True):
        tab = f.interval(alpha, var=var)
        for u, row in tab.iterrows():
            lo, hi = drawn[(label, str(u))]
            want = [row["lower"], row["upper"]]
            if not np.isfinite(want).all():
                assert not np.isfinite([lo, hi]).all(), (label, u, lo, hi)
                continue
            np.testing.assert_allclose([lo, hi], want, rtol=1e-9)


def title(pc) -> str:
    """The figure title a judgebayes plot wrote."""
    return pc.viz["figure"].item()._suptitle.get_text()
