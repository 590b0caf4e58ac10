package io.nodeatlas.cli.completion;

import io.nodeatlas.cli.NodeAtlasCommand;
import io.nodeatlas.cli.UsageException;
import java.io.PrintWriter;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.AutoComplete;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code nodeatlas completion bash|zsh}: the shell completion script of every command and flag, as
 * kubectl prints its own. The script is picocli's ({@link AutoComplete#bash}), which runs in bash and,
 * through zsh's {@code bashcompinit} (which it loads), in zsh.
 */
@Command(name = "completion", mixinStandardHelpOptions = true,
    description = {"Print the shell completion script for bash or zsh.",
        "bash: source <(nodeatlas completion bash), or save it as /etc/bash_completion.d/nodeatlas.",
        "zsh:  source <(nodeatlas completion zsh), e.g. in ~/.zshrc."})
public final class CompletionCommand implements Callable<Integer> {

  @Spec CommandSpec spec;

  @Parameters(paramLabel = "SHELL", description = "bash or zsh.")
  String shell;

  @Override
  public Integer call() {
    String s = shell.toLowerCase(Locale.ROOT);
    if (!s.equals("bash") && !s.equals("zsh")) {
      throw new UsageException("completion: the shell must be bash or zsh, not \"" + io.nodeatlas.discovery.host.Excerpt.scrub(shell) + "\"");
    }
    // The whole command tree, whichever command this run registered.
    String script = AutoComplete.bash("nodeatlas", NodeAtlasCommand.commandLine());
    PrintWriter out = spec.commandLine().getOut();
    // One script for both: it enables zsh's bashcompinit itself when zsh sources it.
    out.print(script);
    out.flush();
    return 0;
  }
}
