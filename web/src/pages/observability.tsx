// stub
export default function Page() {
  return <h1>observability</h1>;
}
