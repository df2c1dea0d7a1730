"""Each paper's central claims as data, and the one engine that judges them.

    <paper>.yaml   the claims of one paper: what it says, where, on which cells and metric, in which
                   direction (or "on par" within a stated tolerance), and the paper's own numbers
    data.py        loads and validates those files
    engine.py      one verdict per claim cell from our per-seed values of its two arms
    render.py      the claims table as CSV, Markdown and LaTeX
    student.py     the t quantile behind every 95 % interval, at real (fractional) degrees of freedom

Nothing here imports train/ or report/: the report reads the run table, computes the per-seed values
and hands them to the engine.
"""
