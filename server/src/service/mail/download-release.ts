import type { UseCaseOf } from '../context.js';
import { FileResult } from '../file-result.js';
import type { MailDeps } from './deps.js';

/**
 * The mailed download link: the signature is checked first, then the release is served from RELEASE_DIR, or
 * streamed as it is built when this install has never packaged it (see ReleaseArtifact).
 */
export const downloadReleaseUseCase =
  (deps: MailDeps): UseCaseOf<'download-release'> =>
  async ({ params, query }) => {
    deps.links.verify(params.file, query.expires, query.signature);
    return new FileResult(await deps.release.open(params.file), params.file, 'application/gzip') as never;
  };
