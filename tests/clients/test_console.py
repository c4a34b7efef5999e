#!/usr/bin/env python3
"""The web console in a real browser: headless Chromium (Debian's `chromium` and
`chromium-driver`) driven by Selenium against a `tessera start` cluster holding the `trips` rows
of test_clients.py. Every check reads what the page shows and, for actions, what the REST API
then answers — the console has no server side of its own.

Run through `tests/clients/run.sh` (which installs Chromium when it can), once over HTTP and
once with `TESSERA_CONSOLE_TLS=1`: the cluster started with `--tls-cert-file` (certificates from
the openssl command) and the browser trusting exactly its certificate (its key pinned), so every
page and every REST call of the console goes over HTTPS. The last line printed is
`N passed, M failed`.
"""

import json
import os
import shutil
import signal
import sys
import tempfile
import time
import unittest

import requests
from selenium import webdriver
from selenium.common.exceptions import TimeoutException
from selenium.webdriver.chrome.options import Options
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support import expected_conditions as EC
from selenium.webdriver.support.ui import WebDriverWait

import test_clients as base
from test_clients import (AUTH_CONFIG, JOIN_SQL, ROWS, SCHEMA, SPLIT, TABLE, TABLE_CONFIG, Cluster, csv_text,
                          expected_by_city, expected_join)

WAIT_S = 20
# Screenshots of each page, kept as test artifacts (look at them after a change to the console).
SHOTS = os.environ.get("TESSERA_CONSOLE_SHOTS", os.path.join(
    os.path.dirname(os.path.abspath(__file__)), "..", "..", "target", "console-screenshots"))
DOWNLOADS = tempfile.mkdtemp(prefix="tessera-console-downloads-")
# The whole suite over HTTPS (see the module docs).
TLS = os.environ.get("TESSERA_CONSOLE_TLS") == "1"
# The certificate's key the browser trusts, with TLS.
SPKI = None


def rest_get(url, **kwargs):
    """The tests' own REST calls to the cluster (its CA trusted with TLS)."""
    return requests.get(url, verify=CLUSTER.verify, **kwargs)


CLUSTER = None
SETUP_ERROR = None
LOG_TAIL = ""


def browser(extra_args=()):
    """Headless Chromium through chromedriver, both from the system."""
    chrome = shutil.which("chromium") or shutil.which("chromium-browser") or shutil.which("google-chrome")
    driver = shutil.which("chromedriver")
    if not chrome or not driver:
        raise RuntimeError("chromium and chromedriver are needed (Debian: apt-get install chromium chromium-driver)")
    options = Options()
    options.binary_location = chrome
    pinned = [f"--ignore-certificate-errors-spki-list={SPKI}"] if SPKI else []
    for arg in ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                "--window-size=1400,1000", "--disable-extensions", *pinned, *extra_args]:
        options.add_argument(arg)
    options.add_experimental_option("prefs", {"download.default_directory": DOWNLOADS,
                                              "download.prompt_for_download": False})
    return webdriver.Chrome(service=Service(executable_path=driver), options=options)


# Temporary directories the module made, removed when it ends.
TEMP_DIRS = [DOWNLOADS]


def setUpModule():
    global CLUSTER, SETUP_ERROR, SPKI
    files = None
    if TLS:
        TEMP_DIRS.append(tempfile.mkdtemp(prefix="tessera-console-tls-"))
        files, SPKI = base.make_certificates(TEMP_DIRS[-1])
    CLUSTER = Cluster(tls=files)
    try:
        CLUSTER.start()
        CLUSTER.post_json("/schemas", SCHEMA)
        CLUSTER.post_json("/tables", TABLE_CONFIG)
        CLUSTER.ingest_segment("0", ROWS[:SPLIT])
        CLUSTER.ingest_segment("1", ROWS[SPLIT:])
        not_ready = CLUSTER.wait_until_loaded()
        if not_ready is not None:
            raise RuntimeError(f"{TABLE} never loaded: {not_ready}")
    except Exception as e:
        SETUP_ERROR = f"{type(e).__name__}: {e}"
        print(f"SETUP FAILED: {SETUP_ERROR}", flush=True)


def tearDownModule():
    global LOG_TAIL
    if CLUSTER is not None:
        CLUSTER.stop(keep_log=True)
        LOG_TAIL = CLUSTER.log_tail(60)
        CLUSTER.cleanup()
    for d in TEMP_DIRS:
        shutil.rmtree(d, ignore_errors=True)


class ConsoleTest(unittest.TestCase):
    maxDiff = None

    @classmethod
    def setUpClass(cls):
        cls.driver = None
        if SETUP_ERROR is None:
            cls.driver = browser()

    @classmethod
    def tearDownClass(cls):
        if cls.driver is not None:
            cls.driver.quit()

    def setUp(self):
        if SETUP_ERROR is not None:
            self.fail(f"cluster setup failed: {SETUP_ERROR}")

    # helpers

    def open(self, route, cluster=None):
        self.driver.get(f"{(cluster or CLUSTER).controller}/#{route}")

    def wait(self, condition, what):
        try:
            return WebDriverWait(self.driver, WAIT_S).until(condition)
        except TimeoutException:
            page = self.driver.find_element(By.TAG_NAME, "body").text[:2000]
            self.fail(f"timed out waiting for {what} at {self.driver.current_url}; the page shows:\n{page}")

    def find(self, css):
        return self.wait(EC.visibility_of_element_located((By.CSS_SELECTOR, css)), css)

    def shot(self, name):
        os.makedirs(SHOTS, exist_ok=True)
        self.driver.execute_script("const t = document.getElementById('toast'); if (t) t.classList.add('hidden')")
        self.driver.save_screenshot(os.path.join(SHOTS, f"{name}.png"))

    def grid_rows(self, css):
        """The cells of a grid's body rows, as text."""
        table = self.find(css)
        return [[td.text for td in tr.find_elements(By.TAG_NAME, "td")]
                for tr in table.find_elements(By.CSS_SELECTOR, "tbody tr")]

    def type_sql(self, sql):
        editor = self.find("#sql")
        editor.send_keys(Keys.CONTROL, "a")
        editor.send_keys(Keys.DELETE)
        editor.send_keys(sql)
        return editor

    def run_sql(self, sql, multistage=False):
        self.open("/query")
        box = self.find("#use-multistage")
        if box.is_selected() != multistage:
            box.click()
        editor = self.type_sql(sql)
        # Ctrl+Enter runs, as in Pinot's console.
        editor.send_keys(Keys.CONTROL, Keys.ENTER)
        self.wait(lambda d: d.find_elements(By.CSS_SELECTOR, "#result-grid, .query-exception, #query-error"),
                  "the query's answer")


class ConsolePages(ConsoleTest):

    def test_cluster_manager_counts_instances_and_lists_tables(self):
        self.open("/")
        self.assertEqual(self.find("#count-controller b").text, "1")
        self.assertEqual(self.find("#count-broker b").text, "1")
        self.assertEqual(self.find("#count-server b").text, "1")
        servers = self.grid_rows("#instances-server")
        self.assertEqual(len(servers), 1)
        self.assertEqual(servers[0][-1], "Alive")
        self.assertIn("DefaultTenant_OFFLINE", servers[0][3])
        # Other tests may have added tables; `trips` is there with its two segments.
        tables = {r[0]: r for r in self.grid_rows("#tables-grid")}
        self.assertEqual(tables[TABLE][2:], ["2", "GOOD"])
        listed = rest_get(f"{CLUSTER.controller}/tables", timeout=30).json()["tables"]
        self.assertEqual(sorted(tables), sorted(listed))
        self.shot("home")

    def test_query_console_runs_sql_with_ctrl_enter_and_shows_rows_and_stats(self):
        self.run_sql(f"SELECT city, COUNT(*) FROM {TABLE} GROUP BY city ORDER BY city LIMIT 100")
        rows = self.grid_rows("#result-grid")
        self.assertEqual([[city, int(n)] for city, n in rows],
                         [[c, v[0]] for c, v in sorted(expected_by_city().items())])
        self.assertEqual(self.find('#stats [data-stat="numDocsScanned"] dd').text, str(len(ROWS)))
        self.assertEqual(self.find('#stats [data-stat="numSegmentsQueried"] dd').text, "2")
        # Keywords are highlighted as typed.
        self.assertTrue(self.driver.find_elements(By.CSS_SELECTOR, ".editor pre .tok-kw"))
        # The query went into the history and the URL.
        self.assertIn("GROUP BY city", self.find("#history").text)
        self.assertIn("query=", self.driver.current_url)
        self.shot("query")

    def test_multi_stage_check_box_runs_joins(self):
        sql = JOIN_SQL
        self.run_sql(sql, multistage=True)
        rows = self.grid_rows("#result-grid")
        self.assertEqual([[city, int(n)] for city, n in rows], [[c, n] for c, n in expected_join()])
        # Without the box the single-stage engine answers with its error and code.
        self.run_sql(sql, multistage=False)
        errors = self.driver.find_elements(By.CSS_SELECTOR, ".query-exception")
        self.assertTrue(errors, self.driver.find_element(By.ID, "results").text)
        self.assertRegex(errors[0].text, r"^Error \d+: ")

    def test_bad_sql_shows_the_error_code(self):
        self.run_sql(f"SELECT nope FROM {TABLE}")
        text = self.driver.find_element(By.ID, "results").text
        self.assertRegex(text, r"Error \d+: .*nope")

    def test_explain_plan_is_drawn_as_a_tree(self):
        self.run_sql(f"EXPLAIN PLAN FOR SELECT COUNT(*) FROM {TABLE} WHERE city = 'Austin'")
        tree = self.find("#plan-tree").text.splitlines()
        self.assertTrue(tree[0].startswith("BROKER_REDUCE"), tree)
        self.assertTrue(any(line.startswith("  └ ") for line in tree), tree)

    def test_table_browser_inserts_columns(self):
        self.open("/query")
        self.type_sql("SELECT ")
        self.find(f'#table-browser [data-table="{TABLE}"]').click()
        self.find('#table-browser [data-column="fare"]').click()
        self.assertEqual(self.find("#sql").get_attribute("value"), "SELECT fare")

    def test_table_page_shows_summary_segments_config_and_schema(self):
        self.open(f"/tenants/table/{TABLE}")
        summary = self.grid_rows("#table-summary")
        self.assertEqual(summary[0][:2], [TABLE, "OFFLINE"])
        self.assertEqual(summary[0][4], "2")
        segments = sorted(r[0] for r in self.grid_rows("#segments-grid"))
        self.assertEqual(segments, [f"{TABLE}_0", f"{TABLE}_1"])
        self.assertTrue(all(r[3] == "GOOD" for r in self.grid_rows("#segments-grid")))
        self.assertEqual(json.loads(self.find("#table-config").text)["tableName"], f"{TABLE}_OFFLINE")
        self.assertEqual(json.loads(self.find("#table-schema").text)["schemaName"], TABLE)
        self.shot("table")

    def test_reload_all_segments_reports_its_job(self):
        self.open(f"/tenants/table/{TABLE}")
        self.find("#reload-segments").click()
        self.find("#dialog-ok").click()
        self.wait(lambda d: "COMPLETED" in d.find_element(By.ID, "action-result").text, "the reload job to finish")
        self.assertRegex(self.find("#action-result").text, r"Reload job \S+: COMPLETED \(2 of 2 segments reloaded\)")


    def test_segment_page_shows_columns_and_reloads(self):
        self.open(f"/tenants/table/{TABLE}")
        self.find(f'#segments-grid a[href$="/{TABLE}_0"]').click()
        summary = self.grid_rows("#segment-summary")
        self.assertEqual(summary[0][0], str(SPLIT))
        columns = {r[0]: r for r in self.grid_rows("#segment-columns")}
        self.assertEqual(columns["fare"][1], "DOUBLE")
        self.assertIn("inverted", columns["city"][10])
        self.shot("segment")
        self.find("#reload-segment").click()
        self.wait(lambda d: "COMPLETED" in d.find_element(By.ID, "action-result").text, "the segment's reload")
        self.assertIn("1 of 1 segments reloaded", self.find("#action-result").text)

    def test_large_answers_are_paged(self):
        sql = f"SELECT a.city, b.fare FROM {TABLE} a JOIN {TABLE} b ON a.city = b.city LIMIT 10000"
        expected = sum(v[0] * v[0] for v in expected_by_city().values())
        self.run_sql(sql, multistage=True)
        self.assertEqual(self.find("#row-count").text, f"{expected} row(s)")
        self.assertEqual(len(self.grid_rows("#result-grid")), 500)
        self.assertIn(f"rows 1–500 of {expected}", self.driver.find_element(By.ID, "results").text)

    def test_logs_page_changes_a_level_and_shows_files(self):
        from selenium.webdriver.support.ui import Select
        self.open("/logs")
        # The server's loggers, set through the controller (which forwards to the instance).
        server = f"Server_{base.HOST}_{CLUSTER.server_port}"
        Select(self.find("#logger-instance")).select_by_value(server)
        self.wait(lambda d: d.find_elements(By.CSS_SELECTOR, '#loggers-grid select[data-logger="root"]'),
                  "the server's loggers")
        level_at = lambda: rest_get(f"{CLUSTER.scheme}://{base.HOST}:{CLUSTER.server_port}/loggers/root", timeout=30).json()["level"]
        before = level_at()
        target = "DEBUG" if before != "DEBUG" else "INFO"
        Select(self.find('#loggers-grid select[data-logger="root"]')).select_by_value(target)
        self.wait(lambda d: level_at() == target, "the level to change")
        Select(self.find('#loggers-grid select[data-logger="root"]')).select_by_value(before)
        self.wait(lambda d: level_at() == before, "the level to change back")
        # Log files of every instance: view the tail, download one.
        self.find("#log-files .view-tail").click()
        self.wait(lambda d: d.find_element(By.ID, "log-tail").text.strip(), "the log's tail")
        self.shot("logs")
        name = self.find("#log-files .view-tail").get_attribute("data-file").split("/")[-1]
        self.find("#log-files .download-log").click()
        path = os.path.join(DOWNLOADS, name)
        self.wait(lambda d: os.path.exists(path) and os.path.getsize(path) > 0, f"{path} to be downloaded")

    def test_narrow_screen_keeps_every_page_usable(self):
        self.driver.set_window_size(390, 844)
        try:
            self.open("/query")
            self.find("#run-query")
            width = self.driver.execute_script("return document.documentElement.scrollWidth")
            self.assertLessEqual(width, 400)
            self.shot("query-phone")
        finally:
            self.driver.set_window_size(1400, 1000)


    def test_rest_api_is_documented_at_help_and_openapi_json(self):
        spec = rest_get(f"{CLUSTER.controller}/openapi.json", timeout=30).json()
        self.assertEqual(spec["openapi"], "3.0.3")
        for path, method in [("/tables/{table}", "put"), ("/segments/{table}/reload", "post"),
                             ("/loggers/{loggerName}", "put"), ("/sql", "post"), ("/help", "get")]:
            self.assertIn(method, spec["paths"].get(path, {}), path)
        self.assertEqual(spec["paths"]["/tables/{table}"]["get"]["parameters"][0]["name"], "table")
        broker = rest_get(f"{CLUSTER.broker}/openapi.json", timeout=30).json()
        self.assertIn("post", broker["paths"]["/query/sql"])
        self.driver.get(f"{CLUSTER.controller}/help")
        self.wait(lambda d: "Tessera controller API" in d.title, "the help page")
        text = self.driver.find_element(By.TAG_NAME, "body").text
        self.assertIn("PUT /tables/{table}", text.replace("\t", " "))
        self.shot("help")


class ConsoleEdits(ConsoleTest):
    """Actions that change the cluster, each checked through the REST API afterwards."""

    def test_edit_table_saves_the_config_and_refuses_bad_json(self):
        self.open(f"/tenants/table/{TABLE}")
        self.find("#edit-table").click()
        editor = self.find("#config-editor")
        config = json.loads(editor.get_attribute("value"))
        # Bad JSON: an error in the dialog, nothing sent.
        self.driver.execute_script("arguments[0].value = arguments[1]", editor, "{not json")
        self.find("#dialog-ok").click()
        self.wait(lambda d: "Invalid JSON" in d.find_element(By.ID, "dialog-error").text, "the JSON error")
        # A config the controller refuses: its error in the dialog, nothing changed.
        bad = dict(config, tableIndexConfig=dict(config["tableIndexConfig"], invertedIndexColumns=["no_such_column"]))
        self.driver.execute_script("arguments[0].value = arguments[1]", editor, json.dumps(bad))
        self.find("#dialog-ok").click()
        self.wait(lambda d: "400" in d.find_element(By.ID, "dialog-error").text, "the controller's refusal")
        stored = rest_get(f"{CLUSTER.controller}/tables/{TABLE}", timeout=30).json()["OFFLINE"]
        self.assertNotIn("no_such_column", json.dumps(stored))
        # A good edit is saved.
        good = dict(config, tableIndexConfig=dict(config["tableIndexConfig"], invertedIndexColumns=["city", "vendor_id"]))
        self.driver.execute_script("arguments[0].value = arguments[1]", editor, json.dumps(good))
        self.find("#dialog-ok").click()
        self.wait(EC.invisibility_of_element_located((By.ID, "dialog")), "the dialog to close")
        stored = rest_get(f"{CLUSTER.controller}/tables/{TABLE}", timeout=30).json()["OFFLINE"]
        self.assertEqual(stored["tableIndexConfig"]["invertedIndexColumns"], ["city", "vendor_id"])
        self.wait(lambda d: '"vendor_id"' in d.find_element(By.ID, "table-config").text,
                  "the page to show the new config")
        # An index change asks for a reload: the page says so and its button does it.
        self.assertIn("Required follow-up: reload", self.find("#follow-up").text)
        self.find("#follow-up-do").click()
        self.wait(lambda d: "COMPLETED" in d.find_element(By.ID, "action-result").text, "the follow-up reload")

    def test_ingest_file_and_upload_segment_dialogs(self):
        name = "console_ingest"
        CLUSTER.post_json("/schemas", dict(SCHEMA, schemaName=name))
        CLUSTER.post_json("/tables", dict(TABLE_CONFIG, tableName=name,
                                          segmentsConfig=dict(TABLE_CONFIG["segmentsConfig"], schemaName=name)))
        path = os.path.join(DOWNLOADS, "rows.csv")
        with open(path, "w") as f:
            f.write(csv_text(ROWS[:10]))
        self.open(f"/tenants/table/{name}")
        self.find("#ingest-file").click()
        self.find("#ingest-file-input").send_keys(path)
        self.assertEqual(self.find("#ingest-format").get_attribute("value"), "csv")
        self.find("#dialog-ok").click()
        self.wait(lambda d: len(rest_get(f"{CLUSTER.controller}/segments/{name}", timeout=30).json()[0]["OFFLINE"]) == 1,
                  "the ingested segment")
        # The segment just made, downloaded through the API and uploaded again under the table: a
        # refresh of the same name (still one segment), through the upload dialog.
        seg = rest_get(f"{CLUSTER.controller}/segments/{name}", timeout=30).json()[0]["OFFLINE"][0]
        archive = os.path.join(DOWNLOADS, f"{seg}.tar.gz")
        with open(archive, "wb") as f:
            f.write(rest_get(f"{CLUSTER.controller}/segments/{name}/{seg}", timeout=30).content)
        self.wait(EC.invisibility_of_element_located((By.ID, "dialog")), "the dialog to close")
        self.find("#upload-segment").click()
        self.find("#segment-file").send_keys(archive)
        self.find("#dialog-ok").click()
        self.wait(EC.invisibility_of_element_located((By.ID, "dialog")), "the upload to finish")
        meta = rest_get(f"{CLUSTER.controller}/segments/{name}/{seg}/metadata", timeout=30).json()
        self.assertIsNotNone(meta["refreshTimeMillis"])
        # A file that is not a segment: the controller's error in the dialog, nothing changed.
        self.find("#upload-segment").click()
        self.find("#segment-file").send_keys(path)
        self.find("#dialog-ok").click()
        self.wait(lambda d: "400" in d.find_element(By.ID, "dialog-error").text, "the refusal")
        self.find("#dialog-cancel").click()
        self.assertEqual(len(rest_get(f"{CLUSTER.controller}/segments/{name}", timeout=30).json()[0]["OFFLINE"]), 1)

    def test_delete_table_and_schema(self):
        name = "console_scratch"
        CLUSTER.post_json("/schemas", dict(SCHEMA, schemaName=name))
        CLUSTER.post_json("/tables", dict(TABLE_CONFIG, tableName=name,
                                          segmentsConfig=dict(TABLE_CONFIG["segmentsConfig"], schemaName=name)))
        self.open(f"/tenants/table/{name}")
        self.find("#delete-table").click()
        self.find("#delete-schema").click()
        self.find("#dialog-ok").click()
        self.wait(lambda d: d.current_url.endswith("#/tables"), "the tables page")
        self.assertNotIn(name, rest_get(f"{CLUSTER.controller}/tables", timeout=30).json()["tables"])
        self.assertEqual(rest_get(f"{CLUSTER.controller}/schemas/{name}", timeout=30).status_code, 404)
        self.assertNotIn(name, [r[0] for r in self.grid_rows("#tables-grid")])

    def test_minion_task_manager_schedules_a_purge_and_shows_its_subtasks(self):
        name = "console_purge"
        CLUSTER.post_json("/schemas", dict(SCHEMA, schemaName=name))
        CLUSTER.post_json("/tables", dict(
            TABLE_CONFIG, tableName=name,
            segmentsConfig=dict(TABLE_CONFIG["segmentsConfig"], schemaName=name),
            task={"taskTypeConfigsMap": {"PurgeTask": {"filterFunction": "city = 'Austin'"}}}))
        r = requests.post(f"{CLUSTER.controller}/ingestFromFile",
                          params={"tableNameWithType": f"{name}_OFFLINE",
                                  "batchConfigMapStr": json.dumps({"inputFormat": "csv"})},
                          files={"file": (f"{name}.csv", csv_text(ROWS).encode(), "text/csv")},
                          timeout=120, verify=CLUSTER.verify)
        self.assertEqual(r.status_code, 200, r.text)
        self.open("/minion-task-manager")
        self.find("#schedule-PurgeTask").click()
        link = self.wait(EC.visibility_of_element_located((By.CSS_SELECTOR, "#tasks-PurgeTask a")),
                         "the scheduled task")
        self.assertTrue(link.text.startswith("Task_PurgeTask_"), link.text)
        link.click()
        deadline = time.monotonic() + 60
        while True:
            states = [r[1] for r in self.grid_rows("#subtasks")]
            if states and all(s == "COMPLETED" for s in states):
                break
            self.assertNotIn("TASK_ERROR", states)
            self.assertLess(time.monotonic(), deadline, states)
            time.sleep(0.5)
            self.driver.refresh()
        self.assertIn("city = 'Austin'", self.find("#task-configs").text)
        # The purge rewrote the segment without Austin's rows.
        kept = sum(1 for r in ROWS if r["city"] != "Austin")
        deadline = time.monotonic() + 30
        while True:
            _, body = CLUSTER.raw_query(f"SELECT COUNT(*) FROM {name}")
            if body.get("resultTable", {}).get("rows") == [[kept]]:
                break
            self.assertLess(time.monotonic(), deadline, body)
            time.sleep(0.2)
        self.shot("minion-task-manager")


class ConsoleLogin(ConsoleTest):
    """With access control on, the console asks for a login and sends it on every call."""

    secured = None

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        path = os.path.join(CLUSTER.tmp if CLUSTER else "/tmp", "auth.properties")
        with open(path, "w") as f:
            f.write(AUTH_CONFIG)
        cls.secured = Cluster(["--auth-config", path], auth=("admin", "verysecret"))
        cls.secured.start()

    @classmethod
    def tearDownClass(cls):
        if cls.secured is not None:
            cls.secured.stop()
            cls.secured.cleanup()
        super().tearDownClass()

    def setUp(self):
        super().setUp()
        # Each test logs in afresh, on a freshly loaded console.
        self.open("/login", cluster=self.secured)
        self.driver.execute_script("sessionStorage.clear()")
        self.driver.get("about:blank")

    def test_login_then_pages_load(self):
        self.open("/", cluster=self.secured)
        self.wait(lambda d: d.current_url.endswith("#/login"), "the login page")
        self.find("#login-user").send_keys("admin")
        self.find("#login-password").send_keys("wrong")
        self.find("#login-submit").click()
        self.wait(lambda d: "Invalid username or password" in d.find_element(By.TAG_NAME, "body").text, "the refusal")
        password = self.find("#login-password")
        password.clear()
        password.send_keys("verysecret")
        self.find("#login-submit").click()
        self.assertEqual(self.find("#count-server b").text, "1")
        self.assertIn("admin", self.find("#user").text)

    def test_a_reader_sees_what_it_may_not_do_disabled(self):
        other = "other"
        self.secured.post_json("/schemas", dict(SCHEMA, schemaName=other))
        self.secured.post_json("/tables", dict(TABLE_CONFIG, tableName=other,
                                               segmentsConfig=dict(TABLE_CONFIG["segmentsConfig"], schemaName=other)))
        self.open("/login", cluster=self.secured)
        self.find("#login-user").send_keys("reader")
        self.find("#login-password").send_keys("secret")
        self.find("#login-submit").click()
        self.wait(lambda d: d.current_url.endswith("#/"), "the home page")
        self.open(f"/tenants/table/{other}", cluster=self.secured)
        self.find("#table-config")
        self.wait(lambda d: d.find_element(By.ID, "edit-table").get_attribute("disabled") is not None,
                  "Edit Table to be disabled")
        for button in ["edit-table", "reload-segments", "delete-table"]:
            self.assertIsNotNone(self.driver.find_element(By.ID, button).get_attribute("disabled"), button)


def main():
    suite = unittest.defaultTestLoader.loadTestsFromModule(sys.modules[__name__])
    result = unittest.TextTestRunner(stream=sys.stdout, verbosity=2).run(suite)
    failed = len(result.failures) + len(result.errors) + len(result.unexpectedSuccesses)
    passed = result.testsRun - failed - len(result.skipped) - len(result.expectedFailures)
    if result.testsRun == 0 or SETUP_ERROR:
        failed = max(failed, 1)
    if failed and LOG_TAIL:
        print(f"--- end of the tessera log ---\n{LOG_TAIL}\n---")
    sys.stdout.flush()
    print(f"{passed} passed, {failed} failed")
    return 0 if failed == 0 and passed > 0 else 1


if __name__ == "__main__":
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    sys.exit(main())
