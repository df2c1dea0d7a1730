"""A small line plot as inline SVG, for results/index.html's per-run curves (no image files, no matplotlib)."""


def curve_svg(points: dict[str, list[tuple[float, float]]], width: int = 250, height: int = 90) -> str:
    """An inline SVG, one polyline per css class of points ({class: [(step, value), ...]}), each at full height,
    at most one point per two pixels of width (every k-th point and the last: a longer curve draws no more)."""
    lines = []
    points = {cls: _thinned(pts, width // 2) for cls, pts in points.items()}
    xs = [x for pts in points.values() for x, _ in pts]
    x0, x1 = min(xs), max(xs)
    for cls, pts in points.items():
        ys = [y for _, y in pts]
        y0, y1 = min(ys), max(ys)
        coords = " ".join(
            f"{(x - x0) / ((x1 - x0) or 1) * (width - 4) + 2:.1f},"
            f"{height - 2 - (y - y0) / ((y1 - y0) or 1) * (height - 4):.1f}"
            for x, y in pts
        )
        lines.append(f'<polyline class="{cls}" fill="none" stroke-width="1.5" points="{coords}"/>')
    return f'<svg width="{width}" height="{height}" viewBox="0 0 {width} {height}">{"".join(lines)}</svg>'


def _thinned(pts: list, most: int) -> list:
    """Every k-th point of pts, k the smallest step that keeps at most `most`, and the last point."""
    kept = pts[:: -(-len(pts) // most)]
    return kept if kept[-1] == pts[-1] else kept + pts[-1:]
