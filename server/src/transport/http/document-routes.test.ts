import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { startTestServer, type TestServer } from '../../test-support/server.js';

type Body = Record<string, unknown> & { error?: { code: string; message: string; field?: string } };
type Doc = Record<string, unknown> & {
  chunks?: { id: string; content: string }[];
  engagement?: Record<string, number>;
};

let server: TestServer;
let admin: Awaited<ReturnType<TestServer['registerTenant']>>;
const glove = { model_name: 'glove-100' };

const call: TestServer['call'] = (...args) => server.call(...args);
const getDoc = async (id: string, token: string, query = '') =>
  call('GET', `/api/v1/documents/${encodeURIComponent(id)}${query}`, token);
const add = (token: string, doc: Record<string, unknown>) =>
  call('POST', '/api/v1/documents', token, { embedding_options: glove, ...doc });

before(async () => {
  server = await startTestServer();
  admin = await server.registerTenant();
});
after(async () => {
  await server.close();
});

describe('add and get', () => {
  test('stores every field, with defaults, and answers 201 {success, document_id}', async () => {
    const created = await add(admin.token, {
      id: 'hnsw-101',
      title: 'HNSW in practice',
      content: 'Hierarchical navigable small world graphs give logarithmic approximate nearest neighbour search.',
      metadata: { author: 'Ada', year: 2025 },
      tags: ['ann', 'graphs'],
      categories: ['engineering'],
      location: [52.52, 13.405],
      external_id: 'ext-1',
      source_url: 'https://example.com/hnsw',
    });
    assert.equal(created.status, 201);
    assert.deepEqual(created.body, { success: true, document_id: 'hnsw-101', version: 1 });
    const { status, body } = await getDoc('hnsw-101', admin.token);
    assert.equal(status, 200);
    const doc = body.document as Doc;
    assert.equal(doc.title, 'HNSW in practice');
    assert.deepEqual(doc.metadata, { author: 'Ada', year: 2025 });
    assert.deepEqual(doc.tags, ['ann', 'graphs']);
    assert.deepEqual(doc.location, [52.52, 13.405]);
    assert.equal(doc.lang_code, 'en');
    assert.equal(doc.visibility, 'public');
    assert.equal(doc.primary_table, 'documents');
    assert.equal(doc.tenant_id, admin.tenantId);
    assert.equal(doc.is_chunk, false);
    assert.equal(doc.version, 1);
    assert.deepEqual(doc.processed_by, ['glove-100']);
    assert.equal(doc.acl, undefined, 'the ACL is shown only when asked for');
  });

  test('the bare /documents alias works and an id is generated when absent', async () => {
    const res = await call('POST', '/documents', admin.token, {
      title: 'No id',
      content: 'generated id',
      embedding_options: glove,
    });
    assert.equal(res.status, 201);
    assert.match(res.body.document_id as string, /^[0-9a-f-]{36}$/);
    assert.equal((await call('GET', `/documents/${res.body.document_id as string}`, admin.token)).status, 200);
  });

  test('the default model embeds when no options are given (use-lite-512)', async () => {
    await call('POST', '/api/v1/documents', admin.token, {
      id: 'default-model',
      content: 'embedded with the default model',
    });
    const doc = (await getDoc('default-model', admin.token, '?include_embeddings=true')).body.document as Doc & {
      embeddings: { vector: number[]; model: string }[];
    };
    assert.equal(doc.embeddings[0]?.model, 'use-lite-512');
    assert.equal(doc.embeddings[0]?.vector.length, 512);
  });

  test('content is chunked; chunks are child documents fetchable by id; flags add chunks, embeddings, stats and ACL', async () => {
    const content = Array.from(
      { length: 40 },
      (_v, i) => `Sentence number ${i} describes the flow over a flat plate.`,
    ).join(' ');
    await add(admin.token, { id: 'long-doc', title: 'Flat plates', content, chunk_size: 300, chunk_overlap: 60 });
    const doc = (
      await getDoc(
        'long-doc',
        admin.token,
        '?include_chunks=true&include_embeddings=true&include_stats=true&include_acl=true',
      )
    ).body.document as Doc & {
      embeddings: { vector: number[] }[];
      stats: Record<string, number>;
      acl: { user_id: string; role: string }[];
    };
    const chunks = doc.chunks ?? [];
    assert.ok(chunks.length >= 6, `${chunks.length} chunks`);
    for (const chunk of chunks) assert.ok(chunk.content.length <= 300);
    assert.equal(chunks[0]?.id, 'long-doc#0');
    assert.equal(doc.is_parent, true);
    assert.equal(doc.embeddings.length, chunks.length);
    assert.equal(doc.embeddings[0]?.vector.length, 100);
    assert.equal(doc.stats.chunk_count, chunks.length);
    assert.deepEqual(doc.acl, [{ user_id: admin.userId, role: 'owner' }]);
    const chunk = (await getDoc('long-doc#2', admin.token)).body.document as Doc;
    assert.equal(chunk.is_chunk, true);
    assert.equal(chunk.parent_doc_id, 'long-doc');
    assert.equal(chunk.content, chunks[2]?.content);
    assert.equal((await getDoc('long-doc#999', admin.token)).status, 404);
  });

  test('adding an existing id creates a new version linked to the old one', async () => {
    await add(admin.token, { id: 'versioned', content: 'first text' });
    const second = await add(admin.token, { id: 'versioned', content: 'second text' });
    assert.equal(second.body.version, 2);
    const current = (await getDoc('versioned', admin.token)).body.document as Doc;
    assert.equal(current.content, 'second text');
    assert.equal(current.version, 2);
    assert.equal(current.previous_doc_id, 'versioned@v1');
    const old = (await getDoc('versioned@v1', admin.token)).body.document as Doc;
    assert.equal(old.content, 'first text');
    assert.equal(old.version, 1);
  });

  test('invalid documents answer 400 naming the field; nothing is written', async () => {
    const cases: [Record<string, unknown>, string, string][] = [
      [{ id: 'bad#id', content: 'x' }, 'body.id', 'VALIDATION_FAILED'],
      [{ content: 'x', colour: 'red' }, 'body.colour', 'VALIDATION_FAILED'],
      [{ content: 'x', visibility: 'secret' }, 'body.visibility', 'VALIDATION_FAILED'],
      [{ content: 'x', location: [95, 10] }, 'body.location[0]', 'VALIDATION_FAILED'],
      [{ content: 'x', chunk_size: 100, chunk_overlap: 100 }, 'body.chunk_overlap', 'VALIDATION_FAILED'],
      [{ content: 'x', file_type: 'image/png' }, 'body.file_type', 'UNSUPPORTED_FILE_TYPE'],
      [
        { content: 'x', embedding_options: { model_name: 'nope' } },
        'body.embedding_options.model_name',
        'MODEL_NOT_AVAILABLE',
      ],
    ];
    for (const [doc, field, code] of cases) {
      const res = await call('POST', '/api/v1/documents', admin.token, doc);
      assert.equal(res.status, 400, JSON.stringify(doc));
      assert.equal(res.body.error?.code, code, JSON.stringify(res.body));
      assert.equal(res.body.error?.field, field);
    }
    const png = await call('POST', '/api/v1/documents', admin.token, { content: 'x', file_type: 'image/png' });
    assert.equal(png.body.error?.message, 'Unsupported file type: image/png. Only PDF and text files are supported.');
  });
});

describe('batch', () => {
  test('writes every document, or none when one is invalid (naming its index and field)', async () => {
    const ok = await call('POST', '/api/v1/documents/batch', admin.token, [
      { id: 'b1', content: 'one', embedding_options: glove },
      { id: 'b2', content: 'two', embedding_options: glove },
    ]);
    assert.equal(ok.status, 200);
    assert.deepEqual(ok.body, { success: true, count: 2, document_ids: ['b1', 'b2'] });
    const bad = await call('POST', '/api/v1/documents/batch', admin.token, [
      { id: 'c1', content: 'one' },
      { id: 'c2', content: 'two' },
      { id: 'c3', content: 'three', visibility: 'everyone' },
    ]);
    assert.equal(bad.status, 400);
    assert.equal(bad.body.error?.field, 'body[2].visibility');
    assert.equal((await getDoc('c1', admin.token)).status, 404, 'nothing was written');
    const dup = await call('POST', '/documents/batch', admin.token, [
      { id: 'd1', content: 'x' },
      { id: 'd1', content: 'y' },
    ]);
    assert.equal(dup.status, 400);
    assert.equal(dup.body.error?.field, 'body[1].id');
  });

  test('async mode answers 202 with a job whose progress reaches done', async () => {
    const docs = Array.from({ length: 1200 }, (_v, i) => ({
      id: `async-${i}`,
      title: `Doc ${i}`,
      content: `content ${i}`,
      embedding_options: { enabled: false },
    }));
    const res = await call('POST', '/api/v1/documents/batch?async=true', admin.token, docs);
    assert.equal(res.status, 202);
    assert.equal(res.body.count, 1200);
    const jobId = res.body.job_id as string;
    let job: Body = {};
    for (let i = 0; i < 200; i += 1) {
      job = (await call('GET', `/api/v1/jobs/${jobId}`, admin.token)).body;
      if (job.status === 'done' || job.status === 'failed') break;
      await new Promise((r) => setTimeout(r, 50));
    }
    assert.equal(job.status, 'done', JSON.stringify(job));
    assert.equal(job.processed, 1200);
    assert.equal((await getDoc('async-1199', admin.token)).status, 200);
    const other = await server.registerTenant();
    assert.equal((await call('GET', `/api/v1/jobs/${jobId}`, other.token)).status, 404);
  });
});

describe('engagement', () => {
  test('counters add up, scores are set, every call is an event', async () => {
    await add(admin.token, { id: 'engaged', content: 'popular' });
    const first = await call('PATCH', '/api/v1/documents/engaged/engagement', admin.token, {
      clicks: 1,
      likes: 1,
      completion: 0.5,
    });
    assert.equal(first.status, 200);
    assert.deepEqual(first.body, { success: true, updated_fields: ['clicks', 'likes', 'completion'] });
    await call('POST', '/api/v1/documents/engaged/engagement', admin.token, {
      clicks: 2,
      completion: 0.8,
      feedback: { rating: 5 },
    });
    const doc = (await getDoc('engaged', admin.token, '?include_stats=true')).body.document as Doc & {
      stats: { engagement_events: number };
    };
    assert.deepEqual(doc.engagement, { clicks: 3, likes: 1, completion: 0.8, feedback: { rating: 5 } });
    assert.deepEqual(doc.feedback, { rating: 5 });
    assert.equal(doc.stats.engagement_events, 2);
    const missing = await call('PATCH', '/api/v1/documents/nope/engagement', admin.token, { clicks: 1 });
    assert.equal(missing.status, 404);
  });
});

describe('visibility and ACL matrix', () => {
  test('owner, editor, viewer, other user and other tenant each see exactly what the rule allows', async () => {
    const editor = await server.addUser(admin);
    const viewer = await server.addUser(admin);
    const other = await server.addUser(admin);
    const stranger = await server.registerTenant();
    const created = await add(admin.token, {
      id: 'secret',
      content: 'private plans',
      visibility: 'private',
      acl: [
        { user_id: editor.userId, role: 'edit' },
        { user_id: viewer.userId, role: 'view' },
        { user_id: other.userId, role: 'view', expires_at: 1 },
      ],
    });
    assert.equal(created.status, 201);
    for (const [who, token, status] of [
      ['owner', admin.token, 200],
      ['editor', editor.token, 200],
      ['viewer', viewer.token, 200],
      ['other (expired entry)', other.token, 404],
      ['other tenant', stranger.token, 404],
    ] as const) {
      assert.equal((await getDoc('secret', token)).status, status, who);
    }
    // Visibility: edit or owner role.
    assert.equal(
      (await call('PUT', '/api/v1/documents/secret/visibility', viewer.token, { visibility: 'shared' })).status,
      403,
    );
    assert.equal(
      (await call('PUT', '/api/v1/documents/secret/visibility', other.token, { visibility: 'public' })).status,
      404,
    );
    assert.equal(
      (await call('PUT', '/api/v1/documents/secret/visibility', stranger.token, { visibility: 'public' })).status,
      404,
    );
    const invalid = await call('PUT', '/api/v1/documents/secret/visibility', editor.token, { visibility: 'everyone' });
    assert.equal(invalid.status, 400);
    assert.equal(invalid.body.error?.code, 'INVALID_VISIBILITY');
    assert.equal(
      (await call('PUT', '/api/v1/documents/secret/visibility', editor.token, { visibility: 'private' })).status,
      200,
    );
    // ACL: owners only.
    const notOwner = await call('PUT', '/api/v1/documents/secret/acl', editor.token, {
      operation: 'add',
      acl: [{ user_id: other.userId, role: 'view' }],
    });
    assert.equal(notOwner.status, 403);
    assert.equal(notOwner.body.error?.message, 'Insufficient privileges: only owners can modify ACL');
    assert.equal(
      (
        await call('PUT', '/api/v1/documents/secret/acl', admin.token, {
          operation: 'update',
          acl: [{ user_id: other.userId, role: 'view' }],
        })
      ).status,
      200,
    );
    assert.equal((await getDoc('secret', other.token)).status, 200, 'the renewed entry counts');
    const lastOwner = await call('PUT', '/api/v1/documents/secret/acl', admin.token, {
      operation: 'remove',
      acl: [{ user_id: admin.userId, role: 'owner' }],
    });
    assert.equal(lastOwner.status, 400);
    assert.equal(lastOwner.body.error?.code, 'LAST_OWNER');
    const unknown = await call('PUT', '/api/v1/documents/secret/acl', admin.token, {
      operation: 'remove',
      acl: [{ user_id: 'nobody', role: 'view' }],
    });
    assert.equal(unknown.status, 400);
    assert.equal(unknown.body.error?.code, 'INVALID_ACL');
    // Hand ownership over, then the first owner can leave.
    await call('PUT', '/api/v1/documents/secret/acl', admin.token, {
      operation: 'update',
      acl: [{ user_id: editor.userId, role: 'owner' }],
    });
    assert.equal(
      (
        await call('PUT', '/api/v1/documents/secret/acl', admin.token, {
          operation: 'remove',
          acl: [{ user_id: admin.userId, role: 'owner' }],
        })
      ).status,
      200,
    );
    assert.equal(
      (await getDoc('secret', admin.token)).status,
      404,
      'the former owner has no entry left on a private document',
    );
  });

  test('shared documents are readable through the access list, by user or group', async () => {
    const member = await server.addUser(admin);
    const outsider = await server.addUser(admin);
    const group = await call('POST', '/auth/groups', admin.token, { name: `readers-${randomUUID()}`, description: '' });
    await call('POST', `/auth/groups/${group.body.group_id as string}/users`, admin.token, { user_id: member.userId });
    const memberToken = await server.login(member.email, 'password-1234');
    await add(admin.token, {
      id: 'shared-doc',
      content: 'for readers',
      visibility: 'shared',
      access_list: [group.body.group_id],
    });
    assert.equal((await getDoc('shared-doc', memberToken)).status, 200);
    assert.equal((await getDoc('shared-doc', outsider.token)).status, 404);
    // The same access list does not open a private document.
    await call('PUT', '/api/v1/documents/shared-doc/visibility', admin.token, { visibility: 'private' });
    assert.equal((await getDoc('shared-doc', memberToken)).status, 404);
  });
});

describe('delete', () => {
  test('soft delete hides, recursive takes the descendants, permanent purges versions too', async () => {
    await add(admin.token, { id: 'parent', content: 'parent' });
    await add(admin.token, { id: 'child', content: 'child', parent_doc_id: 'parent' });
    await add(admin.token, { id: 'grandchild', content: 'grandchild', parent_doc_id: 'child' });
    const parent = (await getDoc('parent', admin.token)).body.document as Doc;
    assert.deepEqual(parent.child_doc_ids, ['child']);
    assert.equal((await call('DELETE', '/api/v1/documents/parent?recursive=true', admin.token)).status, 200);
    for (const id of ['parent', 'child', 'grandchild']) assert.equal((await getDoc(id, admin.token)).status, 404, id);

    await add(admin.token, { id: 'purged', content: 'v1' });
    await add(admin.token, { id: 'purged', content: 'v2' });
    const res = await call('DELETE', '/api/v1/documents/purged?permanent=true', admin.token);
    assert.equal(res.body.message, 'Document purged deleted permanently');
    assert.equal((await getDoc('purged@v1', admin.token)).status, 404);
    const again = await add(admin.token, { id: 'purged', content: 'fresh' });
    assert.equal(again.body.version, 1, 'a purged id starts over');

    const viewer = await server.addUser(admin);
    await add(admin.token, { id: 'not-yours', content: 'x' });
    assert.equal((await call('DELETE', '/api/v1/documents/not-yours', viewer.token)).status, 403);
    assert.equal((await call('DELETE', '/api/v1/documents/missing-doc', admin.token)).status, 404);
  });
});

describe('stats and index maintenance', () => {
  test('stats count the tenant’s live documents, vectors and locations; refresh and recluster are admin only', async () => {
    const tenant = await server.registerTenant();
    const docs = Array.from({ length: 30 }, (_v, i) => ({
      id: `s${i}`,
      title: i % 2 ? 'aerodynamics of wings' : 'heat transfer in pipes',
      content: i % 2 ? `lift and drag of wing section ${i}` : `convection and conduction in pipe ${i}`,
      ...(i < 5 && { location: [48 + i / 10, 2 + i / 10] }),
      embedding_options: glove,
    }));
    await call('POST', '/api/v1/documents/batch', tenant.token, docs);
    await call('DELETE', '/api/v1/documents/s29', tenant.token);
    const stats = (await call('GET', '/api/v1/documents/stats', tenant.token)).body;
    assert.deepEqual(stats, { DocumentCount: 29, VectorCount: 29, GeoCount: 5, ClusterCount: 0, AvgVectorDim: 100 });

    const user = await server.addUser(tenant);
    assert.equal((await call('POST', '/api/v1/indexes/refresh', user.token)).status, 403);
    const refresh = await call('POST', '/api/v1/indexes/refresh', tenant.token);
    assert.equal(refresh.status, 200);
    assert.equal(refresh.body.documents, 29);
    assert.equal(refresh.body.vectors, 29);
    assert.match(refresh.body.message as string, /Rebuilt the text, geo and vector indexes of 29 documents/);
    const recluster = await call('POST', '/api/v1/indexes/recluster', tenant.token);
    assert.equal(recluster.status, 200);
    assert.ok((recluster.body.clusters as number) >= 2);
    const after = (await call('GET', '/documents/stats', tenant.token)).body;
    assert.equal(after.ClusterCount, recluster.body.clusters);
    assert.equal(((await getDoc('s1', tenant.token)).body.document as Doc).cluster !== undefined, true);
  });
});

describe('tenant isolation', () => {
  test('another tenant cannot read, change or delete a document, and may reuse its id', async () => {
    const other = await server.registerTenant();
    await add(admin.token, { id: 'mine', content: 'tenant A' });
    assert.equal((await getDoc('mine', other.token)).status, 404);
    assert.equal((await call('PATCH', '/api/v1/documents/mine/engagement', other.token, { clicks: 1 })).status, 404);
    assert.equal((await call('DELETE', '/api/v1/documents/mine', other.token)).status, 404);
    const theirs = await add(other.token, { id: 'mine', content: 'tenant B' });
    assert.equal(theirs.body.version, 1);
    assert.equal(((await getDoc('mine', admin.token)).body.document as Doc).content, 'tenant A');
  });
});
