#!/usr/bin/env python3
# What the integrity check costs on opening a large workspace: a 590 MiB SQLite file shaped like
# a run of 100,000 candidates (1 KiB source, 0.5 KiB prompt, 4.5 KiB response, two indexes),
# then PRAGMA quick_check(1) on it three times, as RunStore::open runs it (immutable, read-only).
# Usage: python3 bench/store/quickcheck.py [FILE]   (default /tmp/kiln-quickcheck.db; removed after)
import os, random, sqlite3, sys, time

path = sys.argv[1] if len(sys.argv) > 1 else "/tmp/kiln-quickcheck.db"
for suffix in ("", "-wal", "-shm"):
    if os.path.exists(path + suffix):
        os.remove(path + suffix)
db = sqlite3.connect(path)
db.execute("PRAGMA journal_mode=WAL")
db.execute("CREATE TABLE c(id INTEGER PRIMARY KEY, run INTEGER, parent INTEGER, source TEXT,"
           " prompt TEXT, response TEXT)")
db.execute("CREATE INDEX c_parent ON c(parent)")
db.execute("CREATE INDEX c_run ON c(run, id, parent)")
rnd = random.Random(1)
texts = ["".join(rnd.choice("abcdefghij {};\n") for _ in range(6000)) for _ in range(50)]
for i in range(100000):
    db.execute("INSERT INTO c(run, parent, source, prompt, response) VALUES (?, ?, ?, ?, ?)",
               (1, i // 2, texts[i % 50][:1024], texts[(i + 1) % 50][:512],
                texts[(i + 2) % 50][:4500]))
db.commit()
db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
db.close()
print(f"{os.path.getsize(path) / 2**20:.0f} MiB")
for _ in range(3):
    start = time.time()
    check = sqlite3.connect(f"file:{path}?immutable=1", uri=True)
    verdict = check.execute("PRAGMA quick_check(1)").fetchone()[0]
    check.close()
    print(f"quick_check: {verdict} in {time.time() - start:.2f} s")
os.remove(path)
