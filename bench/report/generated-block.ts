// A block of a Markdown document that a bench command rewrites from its results: the lines
// between two HTML comment markers, so that the prose around them stays as written.

export interface GeneratedBlockMarkers {
  readonly start: string;
  readonly end: string;
}

export class DocMarkersMissingError extends Error {
  constructor(
    readonly docPath: string,
    readonly markers: GeneratedBlockMarkers,
  ) {
    super(`${docPath} has no ${markers.start} … ${markers.end} block to replace`);
    this.name = 'DocMarkersMissingError';
  }
}

/** `doc` with the lines between the markers replaced by `generated`; the markers themselves stay. */
export function replaceGeneratedBlock(
  doc: string,
  markers: GeneratedBlockMarkers,
  generated: string,
  docPath: string,
): string {
  const start = doc.indexOf(markers.start);
  const end = doc.indexOf(markers.end);
  if (start < 0 || end < start) throw new DocMarkersMissingError(docPath, markers);
  return `${doc.slice(0, start + markers.start.length)}\n${generated}\n${doc.slice(end)}`;
}
