/** A use-case result that is a file to stream (downloads), not JSON. */
export class FileResult {
  constructor(
    readonly path: string,
    readonly name: string,
    readonly contentType: string,
  ) {}
}
