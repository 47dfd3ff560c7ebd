/** Node type → colour (Tableau 10), shared by the graph style and the legend. */
export const TYPE_COLOURS: Readonly<Record<string, string>> = {
  source: '#4e79a7',
  test: '#f28e2b',
  config: '#76b7b2',
  script: '#59a14f',
  doc: '#edc948',
  data: '#b07aa1',
  asset: '#ff9da7',
  service: '#9c755f',
};
export const OTHER_COLOUR = '#bab0ac';
export const DIVERGENT_COLOUR = '#e15759';

export function colourOf(type: string): string {
  return TYPE_COLOURS[type] ?? OTHER_COLOUR;
}
