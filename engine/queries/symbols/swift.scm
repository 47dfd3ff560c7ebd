; Symbol facts for Swift (captures: engine/symbols/plugin.ts).

; Calls: `f(x)`, `a.f(x)`, `self.f()`, `super.init(...)`, `T(x)` (a construction: the type's init), trailing closures.
(call_expression . (simple_identifier) @call.name . (call_suffix (value_arguments)? @call.args))
(call_expression
  . (navigation_expression target: (_) @call.receiver suffix: (navigation_suffix suffix: (simple_identifier) @call.name))
  . (call_suffix (value_arguments)? @call.args))

; Types in declarations.
(parameter name: (_) @type.expr .)
(type_annotation (_) @type.expr)
(function_declaration name: (simple_identifier) name: (_) @type.expr)
(as_expression type: (_) @type.expr)

; Supertypes: the first may be a class, the rest protocols (the resolver labels by the target's kind).
(inheritance_specifier inherits_from: (_) @super.extends)

; Definition attributes.
(function_declaration name: (simple_identifier) name: (_) @def.returns)
(function_declaration (modifiers (property_modifier) @def.static) (#match? @def.static "^(static|class)$"))

; Typed names.
(parameter name: (simple_identifier) @bind.param . name: (_) @bind.type)
(property_declaration name: (pattern bound_identifier: (simple_identifier) @bind.local) (type_annotation (_) @bind.type))
(property_declaration name: (pattern bound_identifier: (simple_identifier) @bind.local) value: (call_expression . (simple_identifier) @bind.new))
(property_declaration name: (pattern bound_identifier: (simple_identifier) @bind.local) value: (call_expression . (navigation_expression) @bind.call))

; Untyped local names (closure parameters, pattern bindings without a type).
(lambda_parameter name: (simple_identifier) @local)
(property_declaration name: (pattern bound_identifier: (simple_identifier) @local))

; Imports: `import M` (the module, every file of its target).
(import_declaration (identifier) @import.source) @import
