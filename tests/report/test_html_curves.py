"""results/index.html's small run plots: a curve longer than the plot is wide draws no more points."""

from noneuclid.figures.svg import curve_svg


def test_a_long_curve_keeps_one_point_per_two_pixels_and_its_ends():
    points = [(step, float(step % 7)) for step in range(301)]
    svg = curve_svg({"loss": points}, width=250)
    coords = svg.split('points="')[1].split('"')[0].split()
    assert len(coords) <= 126 and coords[0].startswith("2.0,") and coords[-1].startswith("248.0,")
    assert curve_svg({"loss": points[:50]}).count(",") == 50  # a short curve keeps every point
