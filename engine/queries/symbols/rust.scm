; Symbol facts for Rust (captures: engine/symbols/plugin.ts). Receivers are rewritten to dotted form by the
; language's normalizeReceiver (`a::b` -> `a.b`).

; Calls: `f()`, `m::f()`, `T::f()`, `Self::f()`, `x.f()`, `self.f()`, turbofish `f::<T>()`.
(call_expression function: (identifier) @call.name arguments: (arguments) @call.args)
(call_expression function: (scoped_identifier path: (_) @call.receiver name: (identifier) @call.name) arguments: (arguments) @call.args)
(call_expression function: (field_expression value: (_) @call.receiver field: (field_identifier) @call.name) arguments: (arguments) @call.args)
(call_expression function: (generic_function function: (identifier) @call.name) arguments: (arguments) @call.args)
(call_expression
  function: (generic_function function: (scoped_identifier path: (_) @call.receiver name: (identifier) @call.name))
  arguments: (arguments) @call.args)
(call_expression
  function: (generic_function function: (field_expression value: (_) @call.receiver field: (field_identifier) @call.name))
  arguments: (arguments) @call.args)

; Functions used as values: `map(Self::f)`, `map(helper)`.
(arguments (identifier) @value.name)
(arguments (scoped_identifier path: (_) @value.receiver name: (identifier) @value.name))

; Types in signatures, fields, lets, struct literals.
(parameter type: (_) @type.expr)
(function_item return_type: (_) @type.expr)
(field_declaration type: (_) @type.expr)
(let_declaration type: (_) @type.expr)
(struct_expression name: (_) @type.expr)

; Supertypes: `impl Trait for T` (on the impl: the engine gives the impl's type its traits), supertraits.
(impl_item trait: (_) @super.implements)
(trait_item bounds: (trait_bounds (_) @super.extends))

; Definition attributes: a function without `self` in an impl is an associated (static) function.
(function_item parameters: (parameters) @def.params)
(function_item return_type: (_) @def.returns)
(impl_item body: (declaration_list (function_item parameters: (parameters . [(parameter) (attribute_item)])) @def.static))
(impl_item body: (declaration_list (function_item parameters: (parameters "(" . ")")) @def.static))

; Typed names.
(parameter pattern: (identifier) @bind.param type: (_) @bind.type)
(let_declaration pattern: (identifier) @bind.local type: (_) @bind.type)
(let_declaration pattern: (identifier) @bind.local value: (struct_expression name: (_) @bind.new))
(let_declaration pattern: (identifier) @bind.local value: (call_expression function: [(scoped_identifier) (identifier)] @bind.call))
(field_declaration name: (field_identifier) @bind.field type: (_) @bind.type)

; Untyped local names: closure parameters, untyped lets and patterns.
(closure_parameters (identifier) @local)
(let_declaration pattern: (identifier) @local)

; Imports: `use` trees (the same paths as engine/languages/rust.ts reads).
(use_declaration argument: (_) @import.use) @import
; `mod x;` binds the module x (its file).
(mod_item !body name: (identifier) @import.mod) @import
