# Ruby truth for bench/truth: each file's require/require_relative/load/autoload calls found with Ruby's own
# parser (RubyVM::AbstractSyntaxTree); an argument built from __dir__/__FILE__ with File.expand_path, File.join,
# File.dirname and + is evaluated; features are found with $LOAD_PATH.resolve_feature_path, the tree's lib/
# own gem's lib/, spec/ and test/ first (as Bundler, rspec and rake set them), then the tree's other lib/ directories.
require 'json'

root = File.expand_path(ARGV[0])
files = Dir.glob('**/*.{rb,rake,gemspec}', base: root).reject { |f| f.split('/').any? { |p| p.start_with?('.') } }.sort
gems = (Dir.glob('**/*.gemspec', base: root).map { |g| File.join(root, File.dirname(g)) } << root).uniq
gems = gems.sort_by { |g| -g.size }
DEFAULT_PATH = $LOAD_PATH.dup
# Per file: its own gem's lib/, spec/ and test/ (Bundler's -Ilib, rspec's and rake test's additions), then every
# gem of the tree's lib/ (installed side by side), then Ruby's own load path.
def load_path_for(file, gems)
  own = gems.find { |g| file.start_with?(g + '/') }
  dirs = %w[lib spec test].map { |d| File.join(own, d) } + gems.map { |g| File.join(g, 'lib') }
  dirs.uniq.select { |d| File.directory?(d) } + DEFAULT_PATH
end

SAFE = /\A(?:\s|File\.(?:expand_path|join|dirname)|__dir__|__FILE__|'[^'\\#]*'|"[^"\\#]*"|[(),+])*\z/

def walk(node, &blk)
  return unless node.is_a?(RubyVM::AbstractSyntaxTree::Node)
  yield node
  node.children.each { |c| walk(c, &blk) }
end

def arg_value(node, file)
  return node.children[0] if node.type == :STR
  src = node.source
  return nil unless src && SAFE.match?(src)
  dir = File.dirname(file)
  eval(src.gsub('__dir__', dir.inspect).gsub('__FILE__', file.inspect)) # only File calls and literals (SAFE)
rescue StandardError
  nil
end

def inside(path, root)
  return nil if path.nil?
  rel = path.start_with?(root + '/') ? path[(root.size + 1)..] : nil
  rel
end

files.each do |f|
  abs = File.join(root, f)
  $LOAD_PATH.replace(load_path_for(abs, gems))
  ast = begin
    RubyVM::AbstractSyntaxTree.parse_file(abs, keep_script_lines: true)
  rescue StandardError, SyntaxError
    next
  end
  walk(ast) do |n|
    next unless %i[FCALL CALL].include?(n.type)
    mid = n.type == :FCALL ? n.children[0] : n.children[1]
    args = n.type == :FCALL ? n.children[1] : n.children[2]
    next unless %i[require require_relative load autoload].include?(mid)
    next if n.type == :CALL && mid != :autoload
    next unless args.is_a?(RubyVM::AbstractSyntaxTree::Node) && args.type == :LIST
    arg = mid == :autoload ? args.children[1] : args.children[0]
    next unless arg.is_a?(RubyVM::AbstractSyntaxTree::Node)
    value = arg_value(arg, abs)
    next unless value.is_a?(String)
    target =
      if mid == :require_relative
        $LOAD_PATH.resolve_feature_path(File.expand_path(value, File.dirname(abs)))
      elsif mid == :load
        p = File.expand_path(value, root)
        File.file?(p) ? [:rb, p] : $LOAD_PATH.resolve_feature_path(value)
      else
        $LOAD_PATH.resolve_feature_path(value)
      end
    t = inside(target && target[1], root)
    t = nil if t == f
    puts JSON.generate({ from: f, targets: t ? [t] : [] })
  rescue LoadError
    puts JSON.generate({ from: f, targets: [] })
  end
end
