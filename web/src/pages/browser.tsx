// stub
export default function Page() {
  return <h1>browser</h1>;
}
