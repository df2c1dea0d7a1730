"""Each paper's central claims as data, and the one engine that judges them.

    <paper>.yaml   the claims of one paper: what it says, where, on which cells and metric, in which
                   relation (better, on par, at least; delta the smallest effect of interest), and the
                   paper's own numbers
    <paper>_tables.yaml  the paper's tables of settings and one metric (read by report/table_engine.py)
    data.py        loads and validates those files
    engine.py      one verdict per claim cell from our per-seed values of its two arms
    significance.py  the p-values behind the verdicts, and Holm's adjustment over a claim's cells
    ledger.py      the register of claim rules (registered.csv): when each rule was fixed
    validation.py  the engine judged on simulated cells of known truth (results/engine/)
    levels.py      the level each look is read at, spent so that a cell's looks decide falsely no more often
                   than one look does (results/engine/levels.csv)
    plan.py        the looks each cell has had, and which undecided cells more seeds would decide
    render.py      the claims table as CSV, Markdown and LaTeX
    student.py     the t quantile behind every 95 % interval, at real (fractional) degrees of freedom

Nothing here imports train/ or report/: the report reads the run table, computes the per-seed values
and hands them to the engine.
"""
