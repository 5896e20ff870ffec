// Progressive enhancement for pages showing a value once (a new API key): a button copies the value of
// the element its data-copy names. Without JavaScript the button stays hidden and the field can be
// selected by hand. Holds no secret itself.
for (const button of document.querySelectorAll('button[data-copy]')) {
  const field = document.getElementById(button.dataset.copy);
  if (!field || !navigator.clipboard) continue;
  button.hidden = false;
  button.addEventListener('click', async () => {
    try {
      await navigator.clipboard.writeText(field.value ?? field.textContent);
      button.textContent = 'Copied';
    } catch {
      field.select?.();
      button.textContent = 'Select and copy by hand';
    }
  });
}
