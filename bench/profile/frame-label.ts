// How the profile summaries name a frame of a V8 profile (CPU or heap): the function and where it
// is, the path cut to what follows node_modules/ or dist/, the line counted from 1.

export interface ProfileCallFrame {
  readonly functionName: string;
  readonly url: string;
  readonly lineNumber: number;
}

export function frameLabel({ functionName, url, lineNumber }: ProfileCallFrame): string {
  const file = url
    .replace(/^file:\/\//, '')
    .replace(/^.*\/node_modules\//, '')
    .replace(/^.*\/dist\//, '');
  return `${functionName || '(anonymous)'} ${file}${file ? `:${lineNumber + 1}` : ''}`.trim();
}
