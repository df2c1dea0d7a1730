// results/index.html's one script (inlined by report.html): a verdict of the legend, clicked, hides the
// claims tables' rows of that verdict (clicked again, shows them); the page reads the same without it.
document.querySelectorAll(".legend .verdict").forEach(chip => chip.addEventListener("click", () => {
  chip.classList.toggle("off");
  const off = new Set([...document.querySelectorAll(".legend .verdict.off")].map(c => c.classList[1]));
  document.querySelectorAll("td[class^='verdict-']").forEach(cell => { cell.parentElement.hidden = off.has(cell.className); });
}));
