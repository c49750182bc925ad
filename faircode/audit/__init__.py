"""Audit packs (SPEC 20): documents regulators and reviewers ask for, built from
faircode's measurements. :func:`faircode.audit.ll144.audit_ll144` (``faircode.audit_ll144``)
is the NYC Local Law 144 bias-audit pack; its reports are in
:mod:`faircode.audit.ll144doc`, the document shared by every pack in
:mod:`faircode.audit.doc`."""
