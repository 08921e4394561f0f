"""The client against a real GoDB server: auth, collections, documents, search, errors and NDJSON import."""

import base64
import os
import tarfile
import tempfile
import unittest
import uuid

from godb import GoDB, GoDBError, ImportProgress

from .support import URL, needs_server, new_tenant


@needs_server
class AuthTest(unittest.TestCase):
    def test_login_keeps_the_token_and_an_api_key_works_in_its_place(self):
        admin, email, _ = new_tenant(URL)
        self.assertTrue(admin.token)
        created = admin.auth.create_api_key("python tests", role="user")
        self.assertTrue(created["key"].startswith("godb_"))

        keyed = GoDB(URL, api_key=created["key"])
        listed = keyed.auth.list_api_keys()
        self.assertEqual([key["id"] for key in listed["keys"]], [created["id"]])
        self.assertNotIn("key", listed["keys"][0], "a list never shows the secret")
        self.assertEqual(listed["keys"][0]["user_email"], email)

        admin.auth.revoke_api_key(created["id"])
        with self.assertRaises(GoDBError) as caught:
            keyed.auth.list_api_keys()
        self.assertEqual((caught.exception.code, caught.exception.status), ("UNAUTHORIZED", 401))

    def test_a_wrong_password_is_a_godb_error_with_code_and_request_id(self):
        _, email, _ = new_tenant(URL)
        with self.assertRaises(GoDBError) as caught:
            GoDB(URL).login(email, "not-the-password")
        error = caught.exception
        self.assertEqual(error.status, 401)
        self.assertEqual(error.code, "INVALID_CREDENTIALS")
        self.assertTrue(error.request_id)

    def test_no_credentials_at_all_is_unauthorized(self):
        with self.assertRaises(GoDBError) as caught:
            GoDB(URL).collections.list()
        self.assertEqual(caught.exception.status, 401)


@needs_server
class CollectionsAndDocumentsTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        admin, _, _ = new_tenant(URL)
        key = admin.auth.create_api_key("documents", role="admin")["key"]
        cls.client = GoDB(URL, api_key=key)
        cls.table = "products_%s" % uuid.uuid4().hex[:8]
        cls.client.collections.create(
            cls.table, {"image": {"dimensions": 4, "distance": "cosine", "storage": "f32"}}, description="shoes"
        )
        shoes = [
            ("red-shoe", "Red running shoe", [0.9, 0.1, 0.0, 0.2], "red", 2024),
            ("blue-shoe", "Blue walking shoe", [0.1, 0.9, 0.0, 0.1], "blue", 2023),
            ("red-boot", "Red leather boot", [0.8, 0.0, 0.3, 0.2], "red", 2022),
        ]
        for doc_id, title, vector, colour, year in shoes:
            cls.client.documents.add(
                id=doc_id,
                title=title,
                text_content="%s for every day" % title.lower(),
                primary_table=cls.table,
                vector=vector,
                metadata={"colour": colour, "year": year},
                tags=[colour],
            )

    def test_the_collection_declares_its_vectors_and_counts_its_documents(self):
        collection = self.client.collections.get(self.table)
        self.assertEqual(collection["vectors"]["image"]["dimensions"], 4)
        self.assertEqual(collection["documents"], 3)
        names = [c["name"] for c in self.client.collections.list()["collections"]]
        self.assertIn(self.table, names)
        updated = self.client.collections.update(self.table, description="all the shoes")
        self.assertEqual(self.client.collections.get(self.table)["description"], "all the shoes", updated)

    def test_add_get_patch_delete_a_document(self):
        added = self.client.documents.add(
            {"id": "green-shoe", "title": "Green shoe", "primary_table": self.table}, vector=[0, 0, 1, 0]
        )
        self.assertEqual(added["document_id"], "green-shoe")
        got = self.client.documents.get("green-shoe", include_embeddings=True)["document"]
        self.assertEqual(got["title"], "Green shoe")
        self.client.documents.update("green-shoe", title="Green trail shoe", metadata={"colour": "green"})
        got = self.client.documents.get("green-shoe")["document"]
        self.assertEqual((got["title"], got["metadata"]["colour"]), ("Green trail shoe", "green"))
        self.client.documents.delete("green-shoe", permanent=True)
        with self.assertRaises(GoDBError) as caught:
            self.client.documents.get("green-shoe")
        self.assertEqual((caught.exception.status, caught.exception.code), (404, "NOT_FOUND"))

    def test_a_stored_file_downloads_as_bytes(self):
        data = "A plain text manual for the red shoe.\n".encode("utf-8")
        self.client.documents.add(
            id="manual",
            title="Manual",
            primary_table=self.table,
            vector=[0, 0, 0, 1],
            file_content=base64.b64encode(data).decode("ascii"),
            file_type="text/plain",
        )
        self.assertEqual(self.client.documents.download_file("manual"), data)
        self.client.documents.delete("manual", permanent=True)

    def test_text_vector_and_hybrid_search_with_a_filter(self):
        red = [{"field": "metadata.colour", "operator": "eq", "value": "red"}]
        text = self.client.search.text("shoe", primary_table=self.table, filters=red)
        self.assertEqual([r["document_id"] for r in text["results"]], ["red-shoe"])

        vector = self.client.search.vector(
            vector=[1, 0, 0, 0], vector_name="image", primary_table=self.table, filters=red, threshold=0
        )
        self.assertEqual([r["document_id"] for r in vector["results"]], ["red-shoe", "red-boot"])

        hybrid = self.client.search.hybrid(
            "leather boot", vector=[0.8, 0, 0.3, 0.2], vector_name="image", primary_table=self.table, filters=red
        )
        self.assertEqual(hybrid["results"][0]["document_id"], "red-boot")
        self.assertTrue(all(r["document_id"].startswith("red-") for r in hybrid["results"]))

    def test_count_and_scroll_with_a_filter(self):
        recent = {"must": [{"field": "metadata.year", "operator": "gte", "value": 2023}]}
        self.assertEqual(self.client.documents.count(self.table, recent)["count"], 2)
        first = self.client.documents.scroll(self.table, limit=2)
        self.assertEqual(len(first["documents"]), 2)
        self.assertTrue(first["next_cursor"])
        ids = [d["id"] for d in self.client.documents.scroll_all(self.table, limit=2)]
        self.assertEqual(sorted(ids), ["blue-shoe", "red-boot", "red-shoe"])

    def test_a_missing_document_is_404_and_a_bad_field_is_400_naming_it(self):
        with self.assertRaises(GoDBError) as missing:
            self.client.documents.get("no-such-document")
        self.assertEqual((missing.exception.status, missing.exception.code), (404, "NOT_FOUND"))
        self.assertTrue(missing.exception.request_id)

        with self.assertRaises(GoDBError) as wrong_size:
            self.client.documents.add(title="Too short", primary_table=self.table, vector=[1, 0])
        self.assertEqual(wrong_size.exception.status, 400)
        self.assertEqual(wrong_size.exception.field, "body.vector")

        with self.assertRaises(GoDBError) as bad:
            self.client.search.text("shoe", limit=-1)
        self.assertEqual((bad.exception.status, bad.exception.code), (400, "VALIDATION_FAILED"))
        self.assertEqual(bad.exception.field, "body.limit")


@needs_server
class ImportTest(unittest.TestCase):
    def test_ndjson_import_from_a_generator_reports_progress_and_each_failed_line(self):
        admin, _, _ = new_tenant(URL)
        table = "imported_%s" % uuid.uuid4().hex[:8]
        admin.collections.create(table, {"v": {"dimensions": 2}})

        def documents():
            for i in range(1, 1201):
                if i == 7:
                    yield {"id": "bad-7", "title": 7, "primary_table": table, "vector": [7, 1]}  # a title must be text
                else:
                    yield {"id": "doc-%d" % i, "title": "Document %d" % i, "primary_table": table, "vector": [i, 1]}

        seen = []
        result = admin.documents.import_ndjson(
            documents(), batch_size=200, on_progress=seen.append, chunk_bytes=8 * 1024, progress_every=500
        )
        self.assertEqual((result.lines, result.written, result.failed), (1200, 1199, 1))
        self.assertEqual(result.failures[0]["line"], 7)
        self.assertEqual(result.failures[0]["error"]["code"], "VALIDATION_FAILED")
        self.assertEqual(result.failures[0]["error"]["field"], "line[7].title")
        self.assertEqual(result.document_ids[:2], ["doc-1", "doc-2"])
        self.assertEqual(admin.documents.count(table)["count"], 1199)

        sending = [p for p in seen if p.written == 0 and p.failed == 0]
        self.assertGreater(len(sending), 1, "progress while sending, chunk by chunk")
        self.assertEqual([p.sent for p in sending], sorted(p.sent for p in sending))
        self.assertEqual(seen[-1], ImportProgress(sent=1200, written=1199, failed=1, done=True))
        answered = [p.written + p.failed for p in seen if p.written + p.failed > 0]
        self.assertEqual(answered, [500, 1000, 1200])

    def test_an_asynchronous_import_answers_a_job_to_wait_for(self):
        admin, _, _ = new_tenant(URL)
        started = admin.documents.import_ndjson(
            [{"id": "a%d" % i, "title": "Async %d" % i, "primary_table": "notes"} for i in range(5)], async_=True
        )
        self.assertEqual(started["lines"], 5)
        job = admin.jobs.wait(started["job_id"], poll_interval=0.1)
        self.assertEqual(job["status"], "done", job)


@unittest.skipUnless(URL and os.environ.get("GODB_SUPERADMIN_EMAIL"), "needs the super admin's credentials")
class SnapshotTest(unittest.TestCase):
    def test_a_snapshot_is_taken_as_a_job_and_streamed_to_a_file(self):
        root = GoDB(URL)
        root.login(os.environ["GODB_SUPERADMIN_EMAIL"], os.environ["GODB_SUPERADMIN_PASSWORD"])
        started = root.snapshots.create()
        self.assertEqual(root.jobs.wait(started["job_id"], poll_interval=0.1)["status"], "done")
        with tempfile.TemporaryDirectory() as folder:
            path = os.path.join(folder, "snapshot.tar")
            self.assertEqual(root.snapshots.download(started["snapshot_id"], path), path)
            with tarfile.open(path) as archive:
                self.assertTrue(any(name.endswith("manifest.json") for name in archive.getnames()))
        root.snapshots.delete(started["snapshot_id"])
        listed = root.snapshots.list()["snapshots"]
        self.assertNotIn(started["snapshot_id"], [snapshot["id"] for snapshot in listed])


@unittest.skipUnless(URL, "needs GODB_URL")
class TenantSnapshotTest(unittest.TestCase):
    def test_a_tenant_snapshot_is_uploaded_and_restored(self):
        admin, _, _ = new_tenant(URL)
        admin.documents.add(id="kept", title="Kept", content="in the snapshot")
        started = admin.snapshots.create()
        self.assertEqual(admin.jobs.wait(started["job_id"], poll_interval=0.1)["status"], "done")
        admin.documents.add(id="later", title="Later", content="after the snapshot")
        with tempfile.TemporaryDirectory() as folder:
            path = admin.snapshots.download(started["snapshot_id"], os.path.join(folder, "tenant.tar"))
            admin.snapshots.delete(started["snapshot_id"])
            uploaded = admin.snapshots.upload(path)
        self.assertEqual(uploaded["snapshot_id"], started["snapshot_id"])
        restoring = admin.snapshots.restore(uploaded["snapshot_id"])
        self.assertEqual(admin.jobs.wait(restoring["job_id"], poll_interval=0.1)["status"], "done")
        self.assertEqual(admin.documents.get("kept")["document"]["title"], "Kept")
        with self.assertRaises(GoDBError) as gone:
            admin.documents.get("later")
        self.assertEqual(gone.exception.status, 404)
