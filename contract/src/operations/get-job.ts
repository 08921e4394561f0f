import { Type } from '@sinclair/typebox';
import { defineOperation } from '../define-operation.js';
import { Enum, PathId } from '../schemas/common.js';

export const getJob = defineOperation({
  id: 'get-job',
  name: 'Get Job',
  category: 'jobs',
  summary: 'Progress of an asynchronous job',
  description:
    'Jobs are started by asynchronous adds, batch and NDJSON imports, snapshots and restores. Poll until `status` is done or failed; `unit` says what `processed` and `total` count.',
  http: { method: 'GET', path: '/api/v1/jobs/{id}', aliases: ['/jobs/{id}'] },
  access: 'user',
  params: PathId,
  success: {
    status: 200,
    schema: Type.Object({
      id: Type.String(),
      status: Enum(['queued', 'running', 'done', 'failed']),
      processed: Type.Integer({ description: 'Work done so far, counted in `unit`.' }),
      total: Type.Integer({ description: 'All the work, counted in `unit`.' }),
      unit: Enum(['documents', 'lines', 'thousandths'] as const, {
        description:
          'What `processed` and `total` count, by kind of job: documents (asynchronous add and batch add), lines read (NDJSON imports), or thousandths of the work (snapshots and restores, which copy database pages or rows and then bytes: `total` is 1000).',
      }),
      error: Type.Optional(Type.String()),
      read: Type.Optional(Type.Integer({ description: 'NDJSON imports: lines read so far.' })),
      written: Type.Optional(Type.Integer({ description: 'NDJSON imports: documents written so far.' })),
      failed: Type.Optional(Type.Integer({ description: 'NDJSON imports: lines refused so far.' })),
      rate: Type.Optional(Type.Number({ description: 'NDJSON imports: lines per second since the job started.' })),
      eta_s: Type.Optional(Type.Integer({ description: 'NDJSON imports: seconds left at the current rate.' })),
      failures: Type.Optional(
        Type.Array(
          Type.Object({
            line: Type.Integer(),
            code: Type.String(),
            message: Type.String(),
            field: Type.Optional(Type.String()),
          }),
          { description: 'NDJSON imports: the first 100 lines refused.' },
        ),
      ),
    }),
    description: 'The job’s state.',
  },
  errors: ['NOT_FOUND'],
  examples: [
    {
      summary: 'A running import',
      params: { id: 'job-5f2c' },
      response: {
        status: 200,
        body: { id: 'job-5f2c', status: 'running', processed: 20000, total: 50000, unit: 'lines' },
      },
    },
  ],
});
