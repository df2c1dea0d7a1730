"""One table rendered three ways (noneuclid.tables)."""

import pandas as pd

from noneuclid import tables


def test_write_gives_csv_of_numbers_and_markdown_and_latex_of_the_display(tmp_path):
    data = pd.DataFrame({"model": ["a_b", "c"], "mean": [1.0 / 3, 2.0], "n": [3, 1]})
    shown = pd.DataFrame({"model": ["a_b", "c"], "F1 %": ["33.33 ± 1.20 (n=3)", "200.00 (n=1)"]})
    out = tmp_path / "toy" / "cpu"  # results/<paper>/<profile>
    paths = tables.write(out, "t", data, shown, "A title", "Mean ± half-width (n); best in bold.", {(1, "F1 %")})
    assert [p.name for p in paths] == ["t.csv", "t.md", "t.tex"]
    assert (out / "t.csv").read_text() == "model,mean,n\na_b,0.3333333333,3\nc,2,1\n"
    md = (out / "t.md").read_text()
    assert md.startswith("# A title\n\nMean ± half-width (n); best in bold.\n\n") and "**200.00 (n=1)**" in md
    tex = (out / "t.tex").read_text()
    assert r"\begin{tabular}{lr}" in tex and r"a\_b & 33.33 $\pm$ 1.20 (n=3) \\" in tex
    assert r"\textbf{200.00 (n=1)}" in tex and r"\label{tab:toy_t}" in tex and r"\toprule" in tex
