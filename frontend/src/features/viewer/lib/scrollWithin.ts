/**
 * Scrolls `container` (a box with its own scrollbars) so that `element` inside it stands in the middle of
 * it. Unlike element.scrollIntoView, nothing around the container moves: the page and the viewer's header
 * stay where they are.
 */
export function scrollWithin(container: HTMLElement, element: HTMLElement): void {
  const box = container.getBoundingClientRect();
  const target = element.getBoundingClientRect();
  container.scrollTop += target.top - box.top - (box.height - target.height) / 2;
  container.scrollLeft += target.left - box.left - (box.width - target.width) / 2;
}
