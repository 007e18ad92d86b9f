import { LifecycleHooks } from "./_base.ts";

/** Meant to be called at session_spawn; the method name has a typo. */
export default class Misspelt extends LifecycleHooks {
  /** An own function-valued property: reported as a method too. */
  helper = () => "help";
  sesion_spawn() {
    return { proceed: false, reason: "never called" };
  }
}
