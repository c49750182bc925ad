"""The twins of the two profiler engines (SPEC 14, issue 29 item 3).

The browser engine `assets/profiler-engine.js` mirrors the Python modules below. A Python
top-level name and its JS twin have the same name: snake_case becomes camelCase, a
leading underscore is dropped (`_imbalance` -> `imbalance`), CONSTANTS and CapWords
names stay as they are (`_SCALE` -> `SCALE`, `_PairTable` -> `PairTable`). This table
declares, per module, every top-level name: a twin by that rule (TWINS), a twin that
keeps another JS name for a stated reason (RENAMED), or a name with no twin
(PYTHON_ONLY); and every JS top-level name that is no Python name's twin (JS_ONLY). A
name added on either side without a line here fails the test, and so does a line whose
name is gone.

The JS top level is the engine factory's body (two-space indentation): `function name(`,
`const name =`, `let name`, `class name`. Python's is the module body (ast).
"""

from __future__ import annotations

import ast
import re

from util import ROOT

ENGINE = ROOT / "assets" / "profiler-engine.js"

#: Names Python modules define for tooling, never mirrored.
TOOLING = {"TYPE_CHECKING", "__all__", "log"}

#: Python names whose JS twin has the same name by the rule, per mirrored module.
TWINS: dict[str, str] = {
    "errors": "InputError",
    "numerics": """fsum Z _SCALE _SQRT2 _LN2 wilson_bounds round_half_up round_int fmt ln
        missing_group_label rows_text pct pct_not_zero _INV_LN2 _LN2_HI _LN2_LO _INV_SQRT_2PI
        EXP_FLOOR Z_SEARCH exp
        normal_upper wilson_at newcombe log_ratio_interval katz_interval score_p search_p holm
        OUTCOME_HUGE OUTCOME_TINY SCALE1 SCALE2 _LN_SQRT_PI _CF_EPS _CF_FPMIN _CF_MAXIT exact_mean
        exact_var exact_diff log1p _stirling lnbeta_half _betacf t_upper _T_CACHE t_quantile
        welch_df _LN_GAMMA_3_2 chi2_upper""",
    "labels": """MISSING_TOKENS AGE_NUMERIC AGE_INTERVAL DEFAULT_AGE_BANDS clean_header
        interval_years band_index band_labels NUMBER outcome_value DEFAULT_RULE""",
    "options": """DELIMITERS _range_error SCORE_RULES DRIFT_RULES PROXY_CORRECTIONS OPTIONS
        CHECKS _MAIN _AUDITS _READING _GROUPS _SHARE NOT_A_NUMBER NOT_AN_INTEGER OUT_OF_RANGE
        NUMBER_TEXT INTEGER_TEXT MAX_INTEGER REPEATED na_item recode_items from_flags _PROFILE
        RECODE_AMBIGUOUS""",
    "detect": """KINDS OVERRIDE_VALUES KEYWORDS SUFFIXES SEX_VOCABULARY RACE_VOCABULARY
        ETHNICITY_VOCABULARY NEUTRAL_VOCABULARY VOCABULARIES SEX_ALIASES tokenize
        kind_from_name fold kind_from_values ethnicity_holds_race _CODED_KINDS coded_labels
        contradiction check_overrides""",
    "reader": """SNIFF_ORDER binary_format utf16_without_bom SPLIT_CANDIDATES SPACE_SPLIT_WORDS
        empty_text json_header _HTML_START _XML_START markup_header
        one_column_split names_first_record long_row repeated_header sep_line
        sniff_delimiter sniff_tied _delimiter_counts DOS_EOF not_utf8 dos_eof_length""",
    "summary": """LABEL_CAP PAIR_COLUMNS CELL_CAP GROUP_FLAG_CAP MAX_GAP_FLAGS _stats_added
        _PairTable pair_cells""",
    "fastpath": "_SPLIT_WINDOW default_parts _cut_allowed",
    "analyze": """FORMAT_VERSION coded_text skewness _sorted_groups dimension_metrics analyze
        _dimension_findings _age_years _not_counted _intersection _tested_cells""",
    "evidence": """SCORE_FLOOR SCORE_FULL SCORE_CI_WIDTH GRADE_CAP UNDER_LINES grade_for balance
        _balance_parts score_bounds pair_tests dimension_score overall_score _r4 Findings""",
    "groupstats": """RATIO_NOTE NO_LABEL_VALUE _values_text label_values _rate_entry _extremes
        _gap_p _alike _summary_fields label_rates _gap_findings cell_mapper crossed_cells
        missing_by_group""",
    "outcomes": """TAIL decimals moments welch welch_p _mean_alike _gap_fields _group_entry
        _no_number outcome_blocks""",
    "compare": """drift_level homogeneity _drift_line _drift_test _shift_p _shares_text _change
        _by_evidence
        compare_dimension compare _by_delta _group_shifts compare_label_rates compare_missing""",
    "reference": """HEADER_ALIASES SUM_TOLERANCE _YEAR _ascii_lower parse_reference sum_warnings
        unmatched_warnings
        match_reference _key_of _by_year reference_block""",
    "provenance": "provenance",
    "safetext": "LABEL_SHOWN CAPPED SENTENCES bounded",
}

#: Twins whose JS name is not the rule's, and why.
RENAMED: dict[tuple[str, str], tuple[str, str]] = {
    ("numerics", "ratio"): ("bigRatio", "BigInts; `ratio` is a local of three engine functions"),
    ("labels", "trim"): ("trimLabel", "exported: `trim` alone says too little in one namespace"),
    ("options", "resolve"): (
        "resolveOptions",
        "exported; `resolve` is the promise callback of the engine's readers",
    ),
    ("options", "_flag"): ("optFlag", "`flag` is a local of many engine functions"),
    ("options", "_number"): ("checkNumber", "`number` is a local and an option kind"),
    ("options", "_na"): ("resolveNa", "`na` is the resolved option's local everywhere"),
    ("options", "_recode"): ("resolveRecode", "`recode` is the resolved option's local"),
    ("options", "BY_NAME"): (
        "OPTION_BY_NAME",
        "the table by name; `BY_NAME` alone says too little in one namespace",
    ),
    ("options", "Option"): ("option", "the record: a class in Python, a factory function in JS"),
    ("options", "_given"): ("givenValue", "`given` is a local of the option checks"),
    ("analyze", "_rewrite"): ("rewriteCounts", "`rewrite` is the recode rules' method"),
    ("analyze", "_unscored"): ("unscoredEntry", "the entries are a local `unscored`, as in Python"),
    ("analyze", "_names"): ("namesText", "`names` is a local of many engine functions"),
    ("evidence", "_LN2"): ("LN2_OF_2", "numerics' LN2 is another constant (one JS namespace)"),
    ("evidence", "_cap"): ("gradeCap", "`cap` is a parameter of the findings functions"),
    ("evidence", "_entry"): ("findingEntry", "`entry` is a local of many engine functions"),
    ("outcomes", "_extremes"): ("outcomeExtremes", "groupstats' _extremes is `extremes`"),
    ("outcomes", "_gap_findings"): ("outcomeGapFindings", "groupstats' is `gapFindings`"),
    ("compare", "_shares"): ("sharesOf", "`shares` is a local of the reference functions"),
    ("compare", "_shift"): ("shiftInterval", "`shift` is a local of bigRatio"),
    ("compare", "_flagged"): ("flaggedShift", "`flagged` is a local of the compare functions"),
    ("safetext", "capped"): ("capLabel", "`capped` is the summary's per-column flags"),
}

#: Python names with no JS twin, and why.
CLI = "the command line's; the engine returns JSON"
PY_TEXT = "report text of the renderers; the engine returns JSON and site/views.js draws it"
OPTIONS_ELSEWHERE = "options of commands the browser engine does not run"
TEXT_READER = "Python's text reader; JS reads bytes (CsvScanner, the reader section)"
COUNTING = "Python's counting (bitsets, pair tables); JS counts cells in CountSink"
FAST_PATH = "the pyarrow fast path and its threads: Python only (the page has workers)"
INLINE = "written inline in the JS function that uses it"
PYTHON_ONLY: dict[str, dict[str, str]] = {
    "errors": {
        **dict.fromkeys(
            "EXIT_OK EXIT_FAIL EXIT_INPUT EXIT_UNMEASURED EXIT_FINDING EXIT_INSUFFICIENT "
            "EXIT_BUDGET EXIT_INTERRUPTED EXIT_BROKEN_PIPE".split(),
            CLI,
        ),
        "EXTRA_OF": "optional Python extras",
        "missing_extra": "optional Python extras",
        "missing_extra_of": "optional Python extras",
        "require": "optional Python extras",
        "FaircodeError": "the base of Python's errors; the engine throws InputError only",
        "NoSuchFile": "the engine reads bytes, not paths",
        "DelimiterRefused": "faircode.spark's head read tells it from a cut record",
    },
    "numerics": {
        "more_text": PY_TEXT,
        "count_text": PY_TEXT,
        "not_shown": PY_TEXT,
        "drift_text": PY_TEXT,
        "compare_group_cells": PY_TEXT,
        "shift_cells": PY_TEXT,
        "share_text": PY_TEXT,
        "drift_claimed": PY_TEXT,
        "fmt_or_dash": PY_TEXT,
        "more_lines": PY_TEXT,
        "normal_quantile": "the monitor's (SPEC 12) only",
        "scaled": "JS turns float expansions into the exact sums (scaledBig, expAdd, square2)",
    },
    "labels": {
        "TRIMMED": "JS trims the char codes 32 and 9 (trimLabel, trimStart, trimEnd)",
        "MissingRule": "JS missingMatcher: the tokens as a Set and as UTF-8 bytes by length",
        "label_of": "JS tests missing cells on bytes (isMissingBytes in CountSink)",
        "typed_label": "typed cells (Arrow, pandas, Spark): Python readers only",
        "float_label": "float16/float32 cells of typed sources: Python readers only",
        "float_labels": "float16/float32 columns of pandas frames: Python readers only",
        "typed_text": "typed cells (Arrow, pandas): Python readers only",
        "age_shape": "JS: AGE_NUMERIC and AGE_INTERVAL tested in buildDimension",
        "age_value": "JS: Number(label) and intervalValue in buildDimension",
        "share_value": "JS: SHARE_GRAMMAR tested in parseReference",
    },
    "options": {
        **dict.fromkeys(
            "FAIRNESS_THRESHOLD FAIRNESS_MIN_SAMPLES FAIRNESS_RULES FAIRNESS_ALPHA "
            "FAIRNESS_ENGINE_HELP FAIRNESS_ENGINES FAIRNESS_ENCODING_HELP "
            "AUDIT_RATIO_THRESHOLD AUDIT_ALPHA "
            "AUDIT_SMALL_DENOMINATOR "
            "AUDIT_DATA_SOURCES "
            "PROXY_KEYS parse_held_out".split(),
            OPTIONS_ELSEWHERE,
        ),
        "GROUP_OPTIONS": "the monitor's check of which options change groups",
        **dict.fromkeys(
            "SPELLING spelling spelled KEYWORD_OF advised _placeholder_or_repr "
            "keyed_held_out held_out_on_spark".split(),
            "the Python API's keyword spelling of a message (SPEC 0.6); the browser engine "
            "speaks in flags, as the CLI",
        ),
        "ENCODING_ADVICE": "the engine reads UTF-8 only (--encoding is refused there)",
        "Options": "the options' class; resolveOptions returns a plain object",
        "_trimmed": INLINE,
        "_OptionsBase": "the options' class; resolveOptions returns a plain object",
        "_params_shape": "JS params are built from plain arrays already",
        "options_of": "the CLI's and MCP tools' records of a command (the engine runs none)",
        "_number_or_why": "JS checkNumber throws where Python returns why (shared by number_arg)",
        **dict.fromkeys(
            "_check_number _check_boolean _check_choice _check_age_bands _check_pair "
            "_check_names _check_delimiter _check_encoding _check_column _check_value "
            "_check_outcome _check_held_out _check_reference".split(),
            "JS CHECKS holds each kind's check as a function of the table",
        ),
        **dict.fromkeys(
            "DICT_ARGS _a dict_arg text_arg bool_arg text_items number_arg check_option "
            "COLUMN_HINT".split(),
            "the Python API's own arguments (SPEC 0.6); the browser engine takes opts only",
        ),
        "relabeler": "JS rewriteOf: the rewrite and its slack (shape differs)",
        "missing_labels": "JS lostMatcher: the lost labels as a byte matcher (shape differs)",
    },
    "detect": {
        "UNKNOWN_VOCABULARY": "the audit packs' (SPEC 20.1, Python only); JS's "
        "NEUTRAL_VOCABULARY lists the same words",
        "CheckedOverrides": "overrides checked once per read (Python); JS checks them in analyze",
        "_KEYWORD_FORMS": "JS keywordMatches tests keyword + suffix per token",
        "_COVER_NUM": "JS coverageMet",
        "_COVER_DEN": "JS coverageMet",
        "_covered": "JS vocabularyCoverage and coverageMet (shape differs)",
        "NOT_DEMOGRAPHIC": INLINE,
        "_FOLD_DROP": INLINE,
        "_WORD": INLINE,
        "_PIECE": INLINE,
        "_DIGITS": INLINE,
        "label_slack": "JS rewriteOf(...).slack",
        "_no_column": INLINE,
    },
    "reader": {
        **dict.fromkeys(
            "BLOCK_SIZE BATCH_ROWS _SENTINEL_FIELD _SENTINEL_LINES FLUSH decoded_blocks "
            "_utf8_scan physical_lines _Lines open_table read_records _without_dos_eof "
            "_unquoted".split(),
            TEXT_READER,
        ),
        "BINARY_FORMATS": "JS binaryFormat holds the signatures",
        "skip_lines_advice": "the Python API's keyword spelling of the advice (SPEC 0.6); the "
        "browser engine speaks in flags, as the CLI",
        "_COMPRESSED": "JS binaryFormat's `compressed`",
        "_NOT_A_TABLE": "JS binaryFormat's `notTable`",
        "open_input": "opening a path: the Node bridge's own (scripts/engine-js.js); "
        "the page is given bytes",
        "header_split": INLINE + " (oneColumnSplit); the monitor's fix is worded from it",
        "delimiter_name": INLINE + " (oneColumnSplit, namesFirstRecord)",
    },
    "summary": {
        "PROXY_LABELS": "proxy hints (SPEC 16) are Python only",
        "Summary": "JS summaries are plain objects (CountSink.finish, mergeSummaries)",
        "SummaryBuilder": "JS CountSink and createProfiler",
        "PairCounts": "JS pair tables are read in place (pairCells)",
        "_added": "JS addedEntries adds count lists (shape differs)",
        **dict.fromkeys(
            "_outcomes_added _add_stats _BITSET_COMBOS _ONE_OF _one_of _bitsets "
            "_with_missing".split(),
            COUNTING,
        ),
    },
    "fastpath": dict.fromkeys(
        "ARROW_BLOCK_SIZE FAST_MIN_BYTES _COMBINE_ROWS _COMBINE_CELLS _QUEUE_COLUMNS "
        "SPLIT_MIN_BYTES _RELAY_BLOCK _DONE PROBE_ROWS Fallback _Abort _Unexpected available "
        "applies _Shared _positional_reader _PartStream _ByteRelay _header_end _split_points "
        "_find_all skip_reported summarize_csv _summarize_csv _PartState _PartsRead "
        "utf8_complete utf8_valid".split(),
        FAST_PATH,
    ),
    "analyze": {
        "UNSCORED_NAMED": INLINE,
        "wilson": "JS rounds wilsonBounds where it uses it",
        "age_mapper": "JS buildDimension (the age mode and each label's band)",
        "_interval_order": "JS buildDimension",
        "group_rule": "the monitor's groups (SPEC 12.3)",
        "_composed": "the monitor's groups (SPEC 12.3)",
        "_identity": "the monitor's groups (SPEC 12.3)",
    },
    "evidence": dict.fromkeys(
        "FINDING_KINDS NOTE_KINDS COMPARE_FINDING_KINDS COMPARE_NOTE_KINDS "
        "DIFFERENCE_KINDS".split(),
        "kind lists of the renderers and the schema",
    ),
    "groupstats": {
        "VALUES_SHOWN": INLINE,
        "Mapper": "a type alias",
        "_wilson": "JS rounds wilsonBounds where it uses it",
        "_intersection_rates": "JS labelRates",
        "not_counted_flags": "JS analyze",
        "_outcome_by": "JS outcomeBlocks",
    },
    "outcomes": {
        "Mapper": "a type alias",
        "Stats": "a type alias",
        "INTERVAL": INLINE,
        "_added": "JS statsAdded",
        "_block": "JS outcomeBlocks",
        "_intersection": "JS outcomeBlocks",
    },
    "compare": {
        "_side": "reads a path or a saved result: Python's I/O",
        "_side_name": "the Python API's names of its sides (the page names its files)",
    },
    "reference": {
        "BUILTIN": "the package's files; the page fetches them",
        "builtin_bytes": "the package's files; the page fetches them",
        "load_reference": "reads a path: Python's I/O",
        "NO_MATCH_SHOWN": "JS noMatch",
        "_quoted": "JS noMatch",
        "_same": INLINE,
        "expected_shares": "JS referenceRows (shape differs)",
    },
    "provenance": {
        "SMALL_INPUT": "hashlib; JS createSha256",
        "_small_sha256": "hashlib; JS createSha256",
        "StreamHash": "hashlib; JS createSha256",
        "sha256_bytes": "hashlib; JS createSha256",
        "provenance_for": "the Python API's provenance of a path or a frame",
    },
    "safetext": dict.fromkeys(
        "UNSAFE _NAMED _ESCAPE _escape shown clip UNICODE_SYMBOLS ASCII_SYMBOLS SYMBOLS "
        "ESCAPE_ERRORS _escape_unencodable fit_stdout _MD_SPECIAL _MD_ENTITY md_escape "
        "FORMULA_START csv_cell".split(),
        PY_TEXT,
    ),
}

#: JS top-level names that are no Python name's twin, and why.
PY_BUILTIN = "what Python has built in (float, int, str, repr, math)"
BYTE_READER = "the byte reader: UTF-8 validation and the CSV state machine on bytes"
STREAM_COUNT = "the streaming counter (Python: SummaryBuilder, Summary.merge)"
OPTION_HANDLING = "the option handling (Python: the Options class); being reworked"
GZIP = "gzip framing for the page and the Node bridge (Python: the gzip module)"
PARTS = "the page's parts on workers (SPEC 0.8)"
API = "the engine's API (profileBytes, createProfiler, ...)"
JS_ONLY: dict[str, str] = {
    "api": "the wrapper that exports the factory's result",
    "VERSION": "faircode/__init__.py __version__",
    **dict.fromkeys(
        "F64 U32 HI frexp1 POW2 pow2 PARTS floatParts expAdd square2 bitLength cmpCodePoint "
        "pyFloatRepr pyStr pyRepr pyBytesRepr utf8Encode nextCodePoint "
        "codePoints".split(),
        PY_BUILTIN,
    ),
    "scaledBig": "the exact sums from float expansions (Python: numerics.scaled)",
    **dict.fromkeys(
        "CP1252_HIGH CP1252_UNDEFINED".split(),
        "notUtf8's table of Windows-1252 (Python: the cp1252 codec)",
    ),
    "sniffNext": "the tie's next line found in the bytes held back before the header "
    "(Python: open_table reads the next line)",
    **dict.fromkeys(
        "missingMatcher isMissing isMissingBytes trimStart trimEnd".split(),
        "the missing-token test on bytes (Python: MissingRule on text)",
    ),
    "SHARE_GRAMMAR": "labels.share_value's grammar",
    **dict.fromkeys(
        "DEFAULTS KNOWN_OPTIONS UTF8_NAMES validateRewrites validateCross "
        "rewriteOf lostMatcher validateOutcome validateLabel".split(),
        OPTION_HANDLING,
    ),
    "numberError": "checkNumber's refusal (Python: the message in _number)",
    "headStarts": "binaryFormat's and unreadFormat's magic test (Python: bytes.startswith)",
    "checkSettings": "the page's check of a change against the summary it keeps, before it "
    "reads the file again (the CLI reads it)",
    "OPTION_FIELDS": "the records' defaults (Python: the Option class's field defaults)",
    "PROXY": "the commands of the proxy options (Python writes them in each record)",
    "UNCONTRADICTED_KINDS": "detect.contradiction names the kinds inline",
    "keywordMatches": "detect._KEYWORD_FORMS",
    "vocabularyCoverage": "detect._covered (shape differs)",
    "coverageMet": "detect._covered (shape differs)",
    "namedKindsOf": "inline in analyze.analyze",
    **dict.fromkeys(
        "firstInvalidUtf8 utf8SequenceLength badIsNul firstBadByte completeLength "
        "hasTextDecoder DECODER decodeValid REC_START FIELD_START UNQUOTED QUOTED "
        "QUOTE_IN_QUOTED NO_BYTES NO_QUICK PIECE appendBytes sameBytes sameFirst unquotedBytes "
        "CsvScanner".split(),
        BYTE_READER,
    ),
    **dict.fromkeys(
        "SCAN_WINDOW SCAN_WASM fieldScan simdFieldScan simdFirstBadByte scanWindow".split(),
        "the byte reader's WebAssembly SIMD field scan (Python: Arrow's or csv's tokenizer)",
    ),
    **dict.fromkeys(
        "LabelTable SPILL digitKey longUnpadded grownInt32 hashBytes DENSE_LIMIT SMALL_CELLS "
        "BATCH_BITS BATCH SparseCells "
        "LazyPairs ROLE_IGNORED ROLE_FORCED ROLE_NAMED ROLE_OPEN ROLE_DEAD ROLE_OUTCOME newAcc "
        "addValue accStats counted CountSink Profiler mergeSummaries addedEntries "
        "unpackSummary".split(),
        STREAM_COUNT,
    ),
    **dict.fromkeys("PARALLEL_MIN_BYTES MAX_PARTS planParts partOptions".split(), PARTS),
    "overrideMap": "overrides as a Map (Python: a dict)",
    "validateOverrides": "detect.check_overrides' --map part",
    "intervalValue": "labels.age_value of an interval",
    "buildDimension": "analyze.age_mapper, _interval_order and the groups of analyze.analyze",
    "firstLabels": "inline in analyze._dimension_findings",
    "countedColumns": "inline in analyze.analyze",
    "groupOfRaw": "groupstats' mappers",
    "labelCellsOf": "inline in groupstats._intersection_rates",
    "statsOf": "inline in outcomes._block",
    "noMatch": "reference.reference_block and _quoted",
    "referenceRows": "reference.expected_shares and reference_block (shape differs)",
    "RecordSink": "parse_reference's records from the byte reader",
    "resolvedParams": "the parameters block of provenance (Python: inline)",
    **dict.fromkeys(
        "GZIP_PIECE GZIP_TRUNCATED isGzip crcTable crc32 gzipReason createGunzip".split(), GZIP
    ),
    "createSha256": "a streaming SHA-256 (Python: hashlib)",
    "unreadFormat": "the formats Python reads and this engine does not (Parquet, Arrow, raw "
    "gzip): named only for a file's own bytes (SPEC 0.8; Python: formats.sniff_format)",
    "createProfiler": API,
    "profileBytes": API,
}

PY_NAME = re.compile(r"[A-Za-z_]\w*")
JS_TOP = re.compile(
    r"^  (?:async )?(?:function\*? *|const |let |var |class )([A-Za-z_$][\w$]*)", re.M
)


def twin_name(name: str) -> str:
    """The JS name of a Python name by SPEC 14's rule."""
    bare = name.lstrip("_")
    if bare.upper() == bare or bare[0].isupper():
        return bare
    head, *rest = bare.split("_")
    return head + "".join(part[:1].upper() + part[1:] for part in rest)


def python_names(module: str) -> list[str]:
    """Top-level names a module binds (functions, classes, assignments), in order."""
    tree = ast.parse((ROOT / "faircode" / f"{module}.py").read_text(encoding="utf-8"))
    names: list[str] = []
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.append(node.name)
        elif isinstance(node, (ast.Assign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for target in targets:
                names += [n.id for n in ast.walk(target) if isinstance(n, ast.Name)]
    return [n for n in names if n not in TOOLING]


def js_names() -> list[str]:
    return JS_TOP.findall(ENGINE.read_text(encoding="utf-8"))


def test_the_rule():
    assert twin_name("dimension_metrics") == "dimensionMetrics"
    assert twin_name("_imbalance") == "imbalance"
    assert twin_name("_SCALE") == "SCALE"
    assert twin_name("_PairTable") == "PairTable"
    assert twin_name("t_upper") == "tUpper"
    assert twin_name("_T_CACHE") == "T_CACHE"


def test_the_engine_top_level_is_read():
    names = js_names()
    assert len(names) == len(set(names)), "a JS top-level name defined twice"
    for name in ("analyze", "fsum", "Findings", "CsvScanner", "SCALE1", "exp"):
        assert name in names


def test_every_python_name_is_declared_once():
    """Each top-level name of a mirrored module is a twin, renamed or Python-only, once."""
    problems = []
    for module in TWINS:
        actual = python_names(module)
        twins = TWINS[module].split()
        renamed = [n for (m, n) in RENAMED if m == module]
        only = list(PYTHON_ONLY.get(module, {}))
        declared = twins + renamed + only
        for name in sorted(set(actual) - set(declared)):
            problems.append(f"{module}.{name}: new; declare it a twin or an exception")
        for name in sorted(set(declared) - set(actual)):
            problems.append(f"{module}.{name}: declared but not in faircode/{module}.py")
        for name in sorted({n for n in declared if declared.count(n) > 1}):
            problems.append(f"{module}.{name}: declared more than once")
    assert not problems, "\n".join(problems)


def test_every_twin_has_its_js_name_and_every_js_name_is_declared():
    """A declared twin has a JS function of its name; a JS name is one twin's or JS-only."""
    js = set(js_names())
    owner: dict[str, list[str]] = {}
    for module, names in TWINS.items():
        for name in names.split():
            owner.setdefault(twin_name(name), []).append(f"{module}.{name}")
    for (module, name), (js_name, why) in RENAMED.items():
        assert why, f"{module}.{name}: a renamed twin says why"
        owner.setdefault(js_name, []).append(f"{module}.{name}")
    problems = []
    for js_name, pys in sorted(owner.items()):
        if js_name not in js:
            problems.append(f"{', '.join(pys)}: no JS top-level name {js_name}")
        if len(pys) > 1:
            problems.append(f"{js_name}: the twin of {' and '.join(pys)} (one each)")
        if js_name in JS_ONLY:
            problems.append(f"{js_name}: a twin and listed JS-only")
    for js_name in sorted(js - set(owner) - set(JS_ONLY)):
        problems.append(f"{js_name}: a new JS name; name it after its Python twin or list it")
    for js_name in sorted(set(JS_ONLY) - js):
        problems.append(f"{js_name}: listed JS-only but not in the engine")
    assert not problems, "\n".join(problems)


def test_every_exception_says_why():
    for module, names in PYTHON_ONLY.items():
        for name, why in names.items():
            assert why.strip(), f"{module}.{name}"
    for name, why in JS_ONLY.items():
        assert why.strip(), name
