"""What a report drew is what it opened for writing (report.written), whatever wrote it."""

from __future__ import annotations

import pandas as pd

from noneuclid import figures
from noneuclid.report.written import recording


def test_recording_names_every_file_written_in_the_block_and_none_read(tmp_path):
    (tmp_path / "read.csv").write_text("a\n1\n")
    with recording() as drawn:
        pd.read_csv(tmp_path / "read.csv").to_csv(tmp_path / "table.csv.gz", index=False)
        (tmp_path / "page.md").write_text("page\n")
        with figures.axes(tmp_path / "figure", (2, 2)) as ax:
            ax.plot([0, 1])
    (tmp_path / "after.md").write_text("after\n")
    assert drawn == {tmp_path / name for name in ("table.csv.gz", "page.md", "figure.png", "figure.pdf")}
