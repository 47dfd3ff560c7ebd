import com.sun.source.tree.*;
import com.sun.source.util.JavacTask;
import java.nio.file.*;
import java.util.*;
import java.util.stream.*;
import javax.tools.*;

/** Prints one JSON line per import of every .java file under args[0]: {"from": file, "targets": [files]}. */
public class JavaImports {
  static String json(String s) {
    return "\"" + s.replace("\\", "\\\\").replace("\"", "\\\"") + "\"";
  }

  /** Indexes a class and its nested classes by qualified name. */
  static void index(Tree t, String outer, String rel, Map<String, List<String>> byClass) {
    if (!(t instanceof ClassTree)) return;
    String name = ((ClassTree) t).getSimpleName().toString();
    String q = outer.isEmpty() ? name : outer + "." + name;
    byClass.computeIfAbsent(q, k -> new ArrayList<>()).add(rel);
    for (Tree m : ((ClassTree) t).getMembers()) index(m, q, rel, byClass);
  }

  public static void main(String[] args) throws Exception {
    Path root = Paths.get(args[0]).toAbsolutePath().normalize();
    List<Path> files;
    try (Stream<Path> s = Files.walk(root)) {
      files = s.filter(p -> p.toString().endsWith(".java") && Files.isRegularFile(p))
          .filter(p -> root.relativize(p).toString().chars().noneMatch(c -> false))
          .filter(p -> { for (Path part : root.relativize(p)) if (part.toString().startsWith(".")) return false; return true; })
          .sorted().collect(Collectors.toList());
    }
    JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
    Map<String, List<String>> byClass = new HashMap<>();
    Map<String, List<String>> byPackage = new HashMap<>();
    Map<String, CompilationUnitTree> units = new LinkedHashMap<>();
    try (StandardJavaFileManager fm = javac.getStandardFileManager(null, null, null)) {
      int batch = 500;
      for (int i = 0; i < files.size(); i += batch) {
        List<Path> part = files.subList(i, Math.min(files.size(), i + batch));
        JavacTask task = (JavacTask) javac.getTask(null, fm, d -> {}, List.of("-proc:none"), null,
            fm.getJavaFileObjectsFromPaths(part));
        for (CompilationUnitTree cu : task.parse()) {
          String rel = root.relativize(Paths.get(cu.getSourceFile().toUri())).toString();
          units.put(rel, cu);
          String pkg = cu.getPackageName() == null ? "" : cu.getPackageName().toString();
          byPackage.computeIfAbsent(pkg, k -> new ArrayList<>()).add(rel);
          for (Tree t : cu.getTypeDecls()) index(t, pkg, rel, byClass);
        }
      }
    }
    StringBuilder out = new StringBuilder();
    for (Map.Entry<String, CompilationUnitTree> e : units.entrySet()) {
      String from = e.getKey();
      boolean any = false;
      for (ImportTree imp : e.getValue().getImports()) {
        String q = imp.getQualifiedIdentifier().toString();
        Set<String> targets = new TreeSet<>();
        boolean star = q.endsWith(".*");
        String name = star ? q.substring(0, q.length() - 2) : q;
        // A single-type import names a class (top-level or nested); a static import a member of a class; an
        // on-demand import the members of a class or the classes of a package.
        String cls = imp.isStatic() && !star ? name.substring(0, Math.max(0, name.lastIndexOf('.'))) : name;
        if (byClass.containsKey(cls)) targets.addAll(byClass.get(cls).subList(0, 1));
        if (targets.isEmpty() && star && !imp.isStatic() && byPackage.containsKey(name)) targets.addAll(byPackage.get(name));
        targets.remove(from);
        out.append("{\"from\": ").append(json(from)).append(", \"targets\": [")
            .append(targets.stream().map(JavaImports::json).collect(Collectors.joining(", "))).append("]}\n");
        any = true;
      }
      if (!any) out.append("{\"from\": ").append(json(from)).append(", \"targets\": []}\n");
    }
    System.out.print(out);
  }
}
