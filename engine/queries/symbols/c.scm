; Symbol facts for C (captures: engine/symbols/plugin.ts).

; Calls: `f(x)`, `s->f(x)` / `s.f(x)` through function pointers are dynamic.
(call_expression function: (identifier) @call.name arguments: (argument_list) @call.args)
(call_expression function: (field_expression) @call.dynamic)
(call_expression function: (parenthesized_expression) @call.dynamic)

; Functions used as values: `qsort(a, n, size, cmp)`, `.handler = on_event`, `fp = f`.
(argument_list (identifier) @value.name)
(initializer_pair value: (identifier) @value.name)
(assignment_expression right: (identifier) @value.name)

; Types in definitions (a prototype's parameters are no use of anything: headers are full of them).
(function_definition
  declarator: (_ parameters: (parameter_list (parameter_declaration type: (type_identifier) @type.expr))))
(function_definition
  declarator: (_ parameters: (parameter_list (parameter_declaration type: (struct_specifier name: (type_identifier) @type.expr)))))
(compound_statement (declaration type: (type_identifier) @type.expr))
(compound_statement (declaration type: (struct_specifier name: (type_identifier) @type.expr)))
(function_definition type: (type_identifier) @type.expr)
(function_definition type: (struct_specifier name: (type_identifier) @type.expr))

; Definition attributes.
(function_definition declarator: (function_declarator parameters: (parameter_list) @def.params))
(function_definition declarator: (pointer_declarator declarator: (function_declarator parameters: (parameter_list) @def.params)))

; Local names (parameters and locals of a definition): a value use of one is no function reference.
(function_definition declarator: (_ parameters: (parameter_list (parameter_declaration declarator: (identifier) @local))))
(compound_statement (declaration declarator: (identifier) @local))
(compound_statement (declaration declarator: (init_declarator declarator: (identifier) @local)))
