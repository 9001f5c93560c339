"""An honest bot that uses what ordinary bots use, all on its first move, then prints ``ok``: threads
(start, join, Lock, Condition, queue.Queue, a thread pool executor), a pipe of multiprocessing, numpy.linalg,
orjson, time, random, os.urandom, tempfile in /tmp, hashlib, json, fork and printing."""
import concurrent.futures
import hashlib
import json
import os
import queue
import random
import tempfile
import threading
import time
from multiprocessing import Pipe

import numpy
import orjson

done = False


def act(observation, legal_actions):
    global done
    if not done:
        done = True
        q = queue.Queue()
        lock = threading.Lock()
        cond = threading.Condition()
        results = []

        def work(n):
            with lock:
                results.append(n * n)
            with cond:
                cond.notify_all()
            q.put(n)

        threads = [threading.Thread(target=work, args=(i,)) for i in range(3)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert sorted(q.get() for _ in range(3)) == [0, 1, 2]
        with concurrent.futures.ThreadPoolExecutor(2) as ex:
            assert list(ex.map(abs, [-3])) == [3]
        a, b = Pipe()
        a.send({"x": 1})
        assert b.recv() == {"x": 1}
        m = numpy.eye(30) * 3 + numpy.arange(900.0).reshape(30, 30) / 900
        numpy.linalg.inv(m)
        numpy.linalg.eig(m)
        numpy.linalg.svd(m)
        time.sleep(0.01)
        assert time.monotonic() and time.time() and time.perf_counter() and time.process_time() >= 0
        random.seed(os.urandom(8))
        random.SystemRandom().random()
        with tempfile.NamedTemporaryFile("w", dir="/tmp", delete=False) as f:
            f.write(json.dumps({"a": 1}))
        with open(f.name) as g:
            json.load(g)
        os.unlink(f.name)
        with tempfile.TemporaryDirectory() as d:
            with open(os.path.join(d, "x"), "wb") as h:
                h.write(orjson.dumps({"b": [1, 2]}))
            os.listdir(d)
        hashlib.sha256(b"x").hexdigest()
        hashlib.md5(b"x").hexdigest()
        orjson.loads(orjson.dumps({"c": numpy.int64(3)}, option=orjson.OPT_SERIALIZE_NUMPY))
        pid = os.fork()
        if pid == 0:
            os._exit(0)
        os.waitpid(pid, 0)
        print("ok", results, flush=True)
    return legal_actions[0]
