; Symbol facts for Ruby (captures: engine/symbols/plugin.ts). Receivers are rewritten to dotted form by the
; language's normalizeReceiver (`A::B` -> `A.B`, `@x` -> `this.x`, `self` -> `this`).

; Construction: `Foo.new(...)`, `A::Foo.new`.
(call receiver: [(constant) (scope_resolution)] @call.name method: (identifier) @_new arguments: (argument_list)? @call.args
  (#eq? @_new "new")) @call.new
; Calls with a receiver, `super(...)`, bare calls with arguments or parentheses.
(call receiver: (_) @call.receiver method: (identifier) @call.name arguments: (argument_list)? @call.args)
(call !receiver method: (identifier) @call.name arguments: (argument_list)? @call.args)
(call receiver: (_) @call.receiver method: (constant) @call.name arguments: (argument_list) @call.args)
(method name: (identifier) @_init body: (body_statement (call method: (super) @call.super arguments: (argument_list)? @call.args))
  (#eq? @_init "initialize"))
; `send`/`public_send`/`method` with a computed name: dynamic.
(call method: (identifier) @call.dynamic (#match? @call.dynamic "^(send|public_send|__send__|instance_eval|class_eval|define_method|method_missing)$"))

; A bare name (no receiver, no arguments): a method call of self or a local; kept as a value use (dropped for locals).
(body_statement (identifier) @value.name)
(binary [(identifier) @value.name])
(argument_list (identifier) @value.name)
(return (argument_list (identifier) @value.name))

; Supertypes: the superclass, and modules mixed in (`include M`, `extend M`, `prepend M`).
(class superclass: (superclass [(constant) (scope_resolution)] @super.extends))
(class body: (body_statement (call !receiver method: (identifier) @_inc arguments: (argument_list [(constant) (scope_resolution)] @super.extends)
  (#match? @_inc "^(include|extend|prepend)$"))))
(module body: (body_statement (call !receiver method: (identifier) @_inc arguments: (argument_list [(constant) (scope_resolution)] @super.extends)
  (#match? @_inc "^(include|extend|prepend)$"))))

; Definition attributes.
(method parameters: (method_parameters) @def.params)
(singleton_method parameters: (method_parameters) @def.params)
(singleton_method) @def.static

; Typed names: instance variables and locals bound to a construction.
(assignment left: (instance_variable) @bind.field
  right: (call receiver: [(constant) (scope_resolution)] @bind.new method: (identifier) @_n (#eq? @_n "new")))
(assignment left: (identifier) @bind.local
  right: (call receiver: [(constant) (scope_resolution)] @bind.new method: (identifier) @_n (#eq? @_n "new")))
(assignment left: (identifier) @bind.local right: (call !arguments) @bind.call)

; Untyped local names: parameters, block parameters, assignments.
(method_parameters (identifier) @local)
(block_parameters (identifier) @local)
(lambda_parameters (identifier) @local)
(optional_parameter name: (identifier) @local)
(keyword_parameter name: (identifier) @local)
(assignment left: (identifier) @local)
(operator_assignment left: (identifier) @local)
