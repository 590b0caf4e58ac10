package io.nodeatlas.cli.cdi;

import io.nodeatlas.cdi.CdiProblem;
import io.nodeatlas.cdi.CdiValidator;
import io.nodeatlas.cli.UsageException;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code nodeatlas cdi validate FILE|DIR...}: checks any vendor's spec files with the reference
 * library's rules (CDI spec v1.1.0). A directory means its {@code *.json}/{@code *.yaml} files plus conflicts
 * between them; a file is checked whatever its name. Prints {@code ok FILE ...} per valid file and one
 * line per problem; exit 1 when there is any problem.
 */
@Command(name = "validate", mixinStandardHelpOptions = true,
    description = "Validate CDI spec files or directories (any vendor); exit 1 listing every problem.")
public final class CdiValidateCommand implements Callable<Integer> {

  @Spec CommandSpec spec;

  @Parameters(arity = "1..*", paramLabel = "FILE|DIR", description = "Spec files or CDI directories.")
  List<Path> paths = new ArrayList<>();

  @Override
  public Integer call() throws IOException {
    PrintWriter out = spec.commandLine().getOut();
    PrintWriter err = spec.commandLine().getErr();
    CdiValidator validator = new CdiValidator();
    List<CdiProblem> problems = new ArrayList<>();
    int files = 0;
    for (Path p : paths) {
      if (Files.isDirectory(p)) {
        CdiValidator.Scan scan = validator.scan(List.of(p));
        files += CdiValidator.specFiles(p).size();
        scan.validSpecs().forEach((file, s) -> out.println("ok " + file + " (" + s.kind() + ", cdiVersion "
            + s.cdiVersion() + ", " + s.devices().size() + " devices)"));
        problems.addAll(scan.problems());
      } else if (Files.exists(p)) {
        files++;
        CdiValidator.LoadedFile loaded = validator.load(p);
        List<CdiProblem> found = loaded.problem() != null ? List.of(loaded.problem())
            : validator.validate(loaded.spec(), p.toString());
        if (found.isEmpty()) {
          out.println("ok " + p + " (" + loaded.spec().kind() + ", cdiVersion " + loaded.spec().cdiVersion() + ", "
              + loaded.spec().devices().size() + " devices)");
        }
        problems.addAll(found);
      } else {
        throw new UsageException(p + ": no such file or directory");
      }
    }
    problems.forEach(out::println);
    out.flush();
    if (!problems.isEmpty()) {
      err.println("nodeatlas: " + problems.size() + " problem(s) in " + files + " file(s)");
      err.flush();
      return 1;
    }
    return 0;
  }
}
