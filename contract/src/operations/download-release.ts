import { Type } from '@sinclair/typebox';
import { defineOperation } from '../define-operation.js';
import { inputLimits } from '../schemas/common.js';

export const downloadRelease = defineOperation({
  id: 'download-release',
  name: 'Download Release',
  category: 'mail',
  summary: 'The GoDB release tarball, by signed link',
  description:
    'The link e-mailed after a binary request: HMAC-signed, valid for SIGNED_URL_EXPIRY_S (1 h by default). An expired or altered link answers 403 with a page saying so.',
  http: { method: 'GET', path: '/api/v1/downloads/{file}', aliases: [] },
  access: 'public',
  params: Type.Object({ file: Type.String({ maxLength: 200, pattern: '^godb-[A-Za-z0-9._-]+\\.tar\\.gz$' }) }),
  query: Type.Object(
    {
      expires: Type.Integer({ minimum: 0, maximum: inputLimits.unixSeconds }),
      signature: Type.String({ maxLength: 43, pattern: '^[A-Za-z0-9_-]{43}$' }),
    },
    { additionalProperties: false },
  ),
  success: {
    status: 200,
    schema: Type.Unknown({ description: 'application/gzip: the release tarball.' }),
    description: 'The tarball.',
  },
  errors: ['DOWNLOAD_LINK_INVALID', 'NOT_FOUND', 'STORAGE_UNAVAILABLE'],
  examples: [
    {
      summary: 'A signed link',
      params: { file: 'godb-0.1.0.tar.gz' },
      query: { expires: 1767229200, signature: 'q0N3vI2m9Y8rJm1F6x7c1yQk8P0v8eS4Vd2uVgq0aXk' },
      response: { status: 200, body: '(binary)' },
    },
  ],
  playground: {
    hints: {
      file: { placeholder: 'godb-0.1.0.tar.gz' },
      expires: { placeholder: 'Unix seconds, from the mailed link' },
      signature: { placeholder: 'From the mailed link' },
    },
  },
});
