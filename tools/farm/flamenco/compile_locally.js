// Runs the job type's compileJob() outside Flamenco, with stand-ins for the Manager's
// `author` API, and prints the tasks as JSON (name, type, commands, dependencies): how the
// template is tested (tests/farm.rs runs the commands in dependency order and compares the
// merged image with a one-machine render), and a dry run before submitting a job.
//
//   node tools/farm/flamenco/compile_locally.js tools/farm/flamenco/wavetrace_partials.js '{"scene": ...}'

const fs = require("fs");
const vm = require("vm");

const [script, settingsJson] = process.argv.slice(2);
const tasks = [];
const author = {
  Task(name, type) {
    const task = { name, type, commands: [], dependencies: [] };
    task.addCommand = (command) => task.commands.push(command);
    task.addDependency = (other) => task.dependencies.push(other.name);
    return task;
  },
  Command(name, parameters) {
    return { name, parameters };
  },
};
const context = { author, console };
vm.createContext(context);
vm.runInContext(fs.readFileSync(script, "utf8") + "\nthis.JOB_TYPE = JOB_TYPE; this.compileJob = compileJob;", context);
// Defaults as the Manager fills them in, then the given settings.
const settings = {};
for (const setting of context.JOB_TYPE.settings) {
  if (setting.default !== undefined) settings[setting.key] = setting.default;
}
Object.assign(settings, JSON.parse(settingsJson));
for (const setting of context.JOB_TYPE.settings) {
  if (setting.required && settings[setting.key] === undefined) {
    throw new Error(`setting ${setting.key} is required`);
  }
}
context.compileJob({ settings, addTask: (task) => tasks.push(task) });
console.log(JSON.stringify(tasks.map(({ name, type, commands, dependencies }) => ({ name, type, commands, dependencies })), null, 1));
