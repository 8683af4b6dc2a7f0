import type { JobStep } from '@service/core/jobs';

const ICON = { pending: '○', running: '◐', done: '✓', failed: '✗', waiting: '…' } as const;

/** The steps of a background job (publish, promote, import), each labelled "<label>: <state>". */
export function JobSteps({ steps }: { steps: JobStep[] }) {
  return (
    <ol className="steps" aria-label="Steps">
      {steps.map((step) => (
        <li key={step.id} data-state={step.state} aria-label={`${step.label}: ${step.state}`}>
          {ICON[step.state]} {step.label}
          {step.detail ? <span className="detail">{step.detail}</span> : null}
        </li>
      ))}
    </ol>
  );
}

/** Files shown before anything is saved. */
export function ShownFiles({ files }: { files: { name: string; text: string }[] }) {
  return (
    <>
      {files.map((file) => (
        <details key={file.name} open={file.name !== 'LICENSE'}>
          <summary>
            <code>{file.name}</code>
          </summary>
          <pre className="file" aria-label={file.name}>
            {file.text}
          </pre>
        </details>
      ))}
    </>
  );
}

/** A unified diff with added and removed lines marked. */
export function Diff({ text }: { text: string }) {
  return (
    <pre className="file diff" aria-label="Changes">
      {text.split('\n').map((line, i) => (
        <span key={i} className={line.startsWith('+') && !line.startsWith('+++') ? 'add' : line.startsWith('-') && !line.startsWith('---') ? 'del' : undefined}>
          {line}
          {'\n'}
        </span>
      ))}
    </pre>
  );
}
