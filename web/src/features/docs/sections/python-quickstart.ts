/**
 * The Python client's quickstart (clients/python), for the "Client libraries" documentation section. It works
 * when pasted: clients/python/python-client.test.ts runs this very text against a real server, twice, and
 * clients/python/issue-37-readme-quickstart.test.ts runs the README's copy of it in a fresh virtual environment.
 */
export const pythonQuickstart = `import os
import uuid

from godb import GoDB, GoDBError

client = GoDB(os.environ.get("GODB_URL", "http://localhost:8081"))

# 1. An account: register a tenant and its first user (who becomes its admin) once, then log in.
email, password = "ada@example.com", "correct horse battery"
try:
    client.auth.register(email, password, tenant_id=str(uuid.uuid4()))
except GoDBError as error:
    if error.code != "EMAIL_EXISTS":
        raise
client.login(email, password)

# 2. Programs use an API key: shown once, stored hashed, revoked with client.auth.revoke_api_key(id).
api_key = client.auth.create_api_key("quickstart")["key"]
client = GoDB(client.url, api_key=api_key)

# 3. A collection whose documents carry your own 4-dimensional vectors.
try:
    client.collections.create("products", {"image": {"dimensions": 4, "distance": "cosine"}})
except GoDBError as error:
    if error.code != "COLLECTION_EXISTS":
        raise

# 4. Documents: one at a time, or any number streamed as NDJSON with progress.
client.documents.add(
    id="red-shoe",
    title="Red running shoe",
    text_content="A light red running shoe",
    primary_table="products",
    vector=[0.9, 0.1, 0.0, 0.2],
    metadata={"colour": "red"},
)
more = (
    {"id": "shoe-%d" % i, "title": "Shoe %d" % i, "primary_table": "products",
     "vector": [0.1, 1.0, i % 3, 0.5], "metadata": {"colour": "blue"}}
    for i in range(100)
)
imported = client.documents.import_ndjson(more, on_progress=lambda p: print("sent", p.sent, "written", p.written))
print(imported.written, "imported,", imported.failed, "failed")

# 5. Search by words and vector together, with a filter on metadata.
red = [{"field": "metadata.colour", "operator": "eq", "value": "red"}]
hits = client.search.hybrid(
    "running shoe", vector=[1.0, 0.0, 0.0, 0.1], vector_name="image", primary_table="products", filters=red, limit=5
)
for hit in hits["results"]:
    print(hit["document_id"], round(hit["score"], 3), hit["title"])

# 6. Errors carry the catalogue code, the HTTP status, the field and the request id.
try:
    client.documents.get("no-such-document")
except GoDBError as error:
    print(error.status, error.code, error.request_id)
`;

/**
 * How to install the Python client. Debian's and Ubuntu's python3 refuse a `pip install` outside a virtual
 * environment (PEP 668, "externally-managed-environment"), so the environment comes first. Offline, pip cannot fetch
 * the build tools (setuptools, wheel) into its isolated build: the venv then uses the system's.
 */
export const pythonInstall = `# not on PyPI yet: install it from a checkout of GoDB (standard library only, Python 3.9+).
# Debian's and Ubuntu's python3 refuse pip install outside a virtual environment (PEP 668): make one first
# (Debian: apt-get install python3-venv).
python3 -m venv .venv
. .venv/bin/activate
pip install ./clients/python
# Offline, pip cannot fetch its build tools: use the system's (Debian: python3-setuptools python3-wheel) instead:
#   python3 -m venv --system-site-packages .venv && . .venv/bin/activate
#   pip install --no-build-isolation --no-index ./clients/python`;
