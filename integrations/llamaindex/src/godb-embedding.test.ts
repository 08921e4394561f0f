import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { Document, Settings, VectorStoreIndex, storageContextFromDefaults } from 'llamaindex';
import { GoDBClient } from '@godb/client';
import {
  startListeningServer,
  type ListeningServer,
} from '../../../clients/typescript/src/test-support/listening-server.js';
import { GoDBEmbedding } from './godb-embedding.js';
import { GoDBVectorStore } from './godb-vector-store.js';

let godb: ListeningServer;
let client: GoDBClient;

before(async () => {
  godb = await startListeningServer();
  client = new GoDBClient({ url: godb.url });
  await client.login(godb.admin.email, godb.admin.password);
});
after(async () => godb.close());

test('GoDBEmbedding embeds with GoDB’s own model, and an index built on it retrieves by meaning', async () => {
  const embedModel = new GoDBEmbedding({ client, model: 'glove-100' });
  const direct = await client.embeddings.create({ text: 'football match', model_name: 'glove-100' });
  assert.deepEqual(await embedModel.getTextEmbedding('football match'), direct.content_embedding);

  Settings.embedModel = embedModel;
  const vectorStore = new GoDBVectorStore({ client, collection: 'li_glove' });
  const index = await VectorStoreIndex.fromDocuments(
    [
      new Document({ id_: 'sport', text: 'the football team won the league after a late goal' }),
      new Document({ id_: 'markets', text: 'stock prices fell as investors sold shares and bonds' }),
      new Document({ id_: 'cooking', text: 'bake the bread in a hot oven with butter and flour' }),
    ],
    { storageContext: await storageContextFromDefaults({ vectorStore }) },
  );
  assert.equal((await client.collections.get({ name: 'li_glove' })).vectors.default?.dimensions, 100);
  const [best] = await index.asRetriever({ similarityTopK: 1 }).retrieve('soccer players scored');
  assert.equal(best?.node.sourceNode?.nodeId, 'sport');
});
