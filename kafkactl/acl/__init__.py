"""ACLs: the model (wire enums, bindings, filters), building bindings from options, and the core operations."""
